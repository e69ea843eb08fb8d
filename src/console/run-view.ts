import { failuresOf, type SyncRunRow } from '../staging/repositories/sync-runs-repository';

/** A failed item as a run recorded it (`<item>: <reason>`). */
export interface ItemFailure {
  item: string;
  reason: string;
}

/** How a run ended, as an operator reads it: a succeeded run with failed items is a partial success. */
export type RunResult = 'running' | 'succeeded' | 'partial success' | 'failed' | 'blocked' | 'cancelled';

/** One sync run as the console shows it (and `/console/api/runs` answers). */
export interface RunView {
  id: number;
  source: string;
  /** `full` or `incremental` (an incremental run reconciles access when its adapter can: `unannounced` counts what that found). */
  kind: string;
  status: string;
  result: RunResult;
  startedAt: string;
  finishedAt: string | null;
  durationSeconds: number | null;
  counts: { added: number; changed: number; unchanged: number; deleted: number; failed: number; skipped: number };
  /** Changes found by access reconciliation that no event had announced. */
  unannounced: number;
  failures: ItemFailure[];
  /** The run's own error when it did not succeed. */
  error: string | null;
  jobId: string | null;
}

/** `<item>: <reason>` split at its first `: ` (an item id never holds one; a reason may). */
export function itemFailure(line: string): ItemFailure {
  const at = line.indexOf(': ');
  return at < 0 ? { item: line, reason: '' } : { item: line.slice(0, at), reason: line.slice(at + 2) };
}

function countsOf(run: SyncRunRow): RunView['counts'] {
  const c = (run.counts ? JSON.parse(run.counts) : {}) as Partial<RunView['counts']>;
  return { added: c.added ?? 0, changed: c.changed ?? 0, unchanged: c.unchanged ?? 0, deleted: c.deleted ?? 0, failed: c.failed ?? 0, skipped: c.skipped ?? 0 };
}

export function runView(run: SyncRunRow): RunView {
  const counts = countsOf(run);
  const result: RunResult = run.status === 'succeeded' && counts.failed > 0 ? 'partial success' : run.status;
  return {
    id: Number(run.id),
    source: run.source,
    kind: run.mode,
    status: run.status,
    result,
    startedAt: run.started_at,
    finishedAt: run.finished_at,
    durationSeconds: run.finished_at ? (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000 : null,
    counts,
    unannounced: Number(run.unannounced ?? 0),
    failures: failuresOf(run).map(itemFailure),
    error: run.status === 'succeeded' ? null : run.error,
    jobId: run.job_id,
  };
}
