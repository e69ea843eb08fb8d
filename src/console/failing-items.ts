import type { Db } from '../staging/database/create-db';
import { SyncRunsRepository, type SyncRunRow } from '../staging/repositories/sync-runs-repository';
import { runView, type RunView } from './run-view';

/** How far back a failure's start is looked for (its streak of runs). */
export const FAILURE_HISTORY_RUNS = 50;

/** An item still failing: in its source's last finished run, failing since the first run of its unbroken streak. */
export interface FailingItem {
  source: string;
  /** The item's id, or `(run)` when the whole run failed. */
  item: string;
  reason: string;
  since: string;
  sinceRun: number;
  lastRun: number;
}

/** The failures a finished run leaves standing: its failed items, or the run itself when it did not succeed. */
function standing(run: RunView): Map<string, string> {
  if (run.result === 'failed' || run.result === 'blocked') return new Map([['(run)', (run.error ?? run.result).split('\n')[0]!]]);
  return new Map(run.failures.map((f) => [f.item, f.reason]));
}

/** A source's items still failing, from its finished runs newest first. */
export function failingOf(finished: readonly SyncRunRow[]): FailingItem[] {
  const views = finished.map(runView).filter((v) => v.result !== 'cancelled');
  const [latest, ...older] = views;
  if (!latest) return [];
  const items: FailingItem[] = [];
  for (const [item, reason] of standing(latest)) {
    let since = latest;
    for (const run of older) {
      if (!standing(run).has(item)) break;
      since = run;
    }
    items.push({ source: latest.source, item, reason, since: since.startedAt, sinceRun: since.id, lastRun: latest.id });
  }
  return items;
}

/** Every item still failing, of every source (or of `source`): the runs' own records, read back. */
export async function failingItems(db: Db, source?: string): Promise<FailingItem[]> {
  const runs = new SyncRunsRepository(db);
  const sources = source ? [source] : (await runs.latestFinishedPerSource()).map((run) => run.source);
  const out: FailingItem[] = [];
  for (const name of sources) {
    const recent = await runs.recent(FAILURE_HISTORY_RUNS, name);
    out.push(...failingOf(recent.filter((run) => run.status !== 'running')));
  }
  return out;
}
