import { GatewayError } from '../../errors/gateway-error';
import { SyncRunsRepository } from '../../staging/repositories/sync-runs-repository';
import type { ConsolePage } from '../console-page';
import { runView, type RunView } from '../run-view';

export const RUNS_DEFAULT = 50;
export const RUNS_MAX = 500;

function limitOf(value: string | undefined): number {
  if (value === undefined || value === '') return RUNS_DEFAULT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > RUNS_MAX) throw new GatewayError('INPUT_VALIDATION_FAILED', `limit must be a whole number from 1 to ${RUNS_MAX}.`);
  return n;
}

/** Recent sync runs, newest first (`?source=` one source's, `?limit=` how many). */
export const runsPage: ConsolePage<{ source: string | null; limit: number; runs: RunView[] }> = {
  path: 'runs',
  title: 'Runs',
  template: 'runs',
  async data(ctx, query) {
    const limit = limitOf(query.limit);
    const source = query.source || undefined;
    const runs = await new SyncRunsRepository(ctx.db).recent(limit, source);
    return { source: source ?? null, limit, runs: runs.map(runView) };
  },
};
