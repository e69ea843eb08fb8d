import type { SyncRunStatus } from '../staging/repositories/sync-runs-repository';
import type { ReconciliationStats } from './reconcile-access';
import type { RunContext, RunTally } from './run-context';
import type { SyncSummary } from './sync-options';

/** How a run ended, beyond its counts. */
export interface RunEnding {
  status: Exclude<SyncRunStatus, 'running'>;
  error?: string;
  resumed: boolean;
  fallback?: string;
  reconciliation?: ReconciliationStats;
}

/**
 * Closes the run's record (its counts, and its first failures when it has no error of its own),
 * with the caller's `withRunEnd` in the same transaction (a worker's job), logs it and sums it up.
 */
export async function finishRun(
  ctx: Pick<RunContext, 'runs' | 'runId' | 'source' | 'mode' | 'started' | 'logger' | 'now'> & { options?: Pick<RunContext['options'], 'withRunEnd'> },
  tally: RunTally,
  ending: RunEnding,
): Promise<SyncSummary> {
  const { status, error, reconciliation } = ending;
  const { counts, identities, failures } = tally;
  await ctx.runs.finish(
    ctx.runId,
    status,
    counts,
    ctx.now().toISOString(),
    error ?? (failures.length ? failures.slice(0, 100).join('\n') : undefined),
    reconciliation?.unannounced,
    ctx.options?.withRunEnd,
  );
  const summary: SyncSummary = {
    source: ctx.source,
    runId: ctx.runId,
    mode: ctx.mode,
    status,
    counts,
    identities,
    durationMs: Date.now() - ctx.started,
    resumed: ending.resumed,
    failures,
    ...(ending.fallback ? { fellBackToFull: ending.fallback } : {}),
    ...(reconciliation ? { reconciliation } : {}),
    ...(error ? { error } : {}),
  };
  ctx.logger.info(
    { runId: ctx.runId, mode: ctx.mode, status, counts, identities, ...(reconciliation ? { reconciliation } : {}), durationMs: summary.durationMs },
    'sync finished',
  );
  return summary;
}
