import { sourceCensus } from '../../staging/repositories/source-census';
import { SyncRunsRepository } from '../../staging/repositories/sync-runs-repository';
import type { ConsolePage } from '../console-page';
import { failingItems } from '../failing-items';
import { runView, type RunView } from '../run-view';

/** One source's health and what it has staged. */
export interface SourceHealth {
  source: string;
  /** `ok`, `partial` (its last run left failed items), `failing` (its last run failed), `never` (no finished run). */
  health: 'ok' | 'partial' | 'failing' | 'never';
  lastRun: Pick<RunView, 'id' | 'kind' | 'result' | 'startedAt' | 'finishedAt'> | null;
  running: boolean;
  oldestFailureSince: string | null;
  oldestFailureAgeSeconds: number | null;
  /** When its access data (access lists, groups, users) was last refreshed: its last succeeded run's end. */
  accessSyncedAt: string | null;
  accessAgeSeconds: number | null;
  files: number;
  deletedFiles: number;
  users: number;
  groups: number;
}

const ageOf = (at: string | null, now: Date): number | null => (at ? Math.max(0, Math.round((now.getTime() - Date.parse(at)) / 1000)) : null);

function healthOf(last: RunView | undefined): SourceHealth['health'] {
  if (!last) return 'never';
  if (last.result === 'partial success') return 'partial';
  return last.result === 'succeeded' ? 'ok' : 'failing';
}

export const sourcesPage: ConsolePage<{ sources: SourceHealth[] }> = {
  path: 'sources',
  title: 'Sources',
  template: 'sources',
  async data(ctx) {
    const runs = new SyncRunsRepository(ctx.db);
    const now = ctx.now();
    const [census, latest, failing] = await Promise.all([sourceCensus(ctx.db), runs.latestFinishedPerSource(), failingItems(ctx.db)]);
    const names = [...new Set([...census.map((c) => c.source), ...latest.map((r) => r.source)])].sort();
    const sources = await Promise.all(
      names.map(async (source): Promise<SourceHealth> => {
        const counts = census.find((c) => c.source === source) ?? { files: 0, deletedFiles: 0, users: 0, groups: 0 };
        const lastRow = latest.find((r) => r.source === source);
        const last = lastRow ? runView(lastRow) : undefined;
        const newest = await runs.latest(source);
        const succeeded = await runs.lastSucceeded(source);
        const oldest = failing.filter((f) => f.source === source).reduce<string | null>((min, f) => (min === null || f.since < min ? f.since : min), null);
        return {
          source,
          health: healthOf(last),
          lastRun: last ? { id: last.id, kind: last.kind, result: last.result, startedAt: last.startedAt, finishedAt: last.finishedAt } : null,
          running: newest?.status === 'running',
          oldestFailureSince: oldest,
          oldestFailureAgeSeconds: ageOf(oldest, now),
          accessSyncedAt: succeeded?.finished_at ?? null,
          accessAgeSeconds: ageOf(succeeded?.finished_at ?? null, now),
          files: counts.files,
          deletedFiles: counts.deletedFiles,
          users: counts.users,
          groups: counts.groups,
        };
      }),
    );
    return { sources };
  },
};
