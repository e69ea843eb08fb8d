import type { SyncRunRow } from '../staging/repositories/sync-runs-repository';

/** How many failed items a sync prints before pointing at `runs` for the rest. */
export const FAILURES_PRINTED = 5;

/** A run's failed items (`<item>: <reason>`, one a line, as the run recorded its first 100), or none. */
export function failuresOf(run: Pick<SyncRunRow, 'error' | 'counts' | 'status'>): string[] {
  // A run that failed or was stopped keeps its own error in the column instead.
  if (run.status !== 'succeeded') return [];
  const failed = run.counts ? Number((JSON.parse(run.counts) as { failed?: number }).failed ?? 0) : 0;
  if (failed === 0 || !run.error) return [];
  return run.error.split('\n').filter(Boolean);
}

/** The lines a sync prints under its summary: the first failed items with their reasons, then where to see all. */
export function failureLines(source: string, failures: readonly string[], failedCount: number): string[] {
  if (failedCount === 0 || failures.length === 0) return [];
  const shown = failures.slice(0, FAILURES_PRINTED).map((failure) => `  failed: ${failure}`);
  const more = failedCount > shown.length ? [`  … ${failedCount - shown.length} more: \`content-gateway runs ${source}\` lists them`] : [];
  return [...shown, ...more, `  (failed items are retried on every run until they succeed or leave the source)`];
}
