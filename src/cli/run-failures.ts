/** How many failed items a sync prints before pointing at `runs` for the rest. */
export const FAILURES_PRINTED = 5;

/** The lines a sync prints under its summary: the first failed items with their reasons, then where to see all. */
export function failureLines(source: string, failures: readonly string[], failedCount: number): string[] {
  if (failedCount === 0 || failures.length === 0) return [];
  const shown = failures.slice(0, FAILURES_PRINTED).map((failure) => `  failed: ${failure}`);
  const more = failedCount > shown.length ? [`  … ${failedCount - shown.length} more: \`content-gateway runs ${source}\` lists them`] : [];
  return [...shown, ...more, `  (failed items are retried on every run until they succeed or leave the source)`];
}
