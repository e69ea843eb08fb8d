import { isIncremental, type Adapter } from '../adapters/adapter';
import type { Logger } from '../logging/create-logger';
import type { CheckpointsRepository } from '../staging/repositories/checkpoints-repository';
import type { SyncMode, SyncRunsRepository } from '../staging/repositories/sync-runs-repository';
import type { SyncOptions } from './sync-options';

/** How a run goes: its mode, the checkpoint an incremental run starts from, and why it is full when it was not asked to be. */
export interface RunPlan {
  mode: SyncMode;
  checkpoint?: unknown;
  fallback?: string;
}

/**
 * Chooses the mode and the starting checkpoint, falling back to a full run (logged) when the
 * checkpoint is missing or invalid, or when `fullEveryMs` says a full run is due. (The adapter
 * says it needs one by throwing `FullRunRequired` from `changes()`, see run-sync.ts.)
 */
export async function planRun(
  adapter: Adapter,
  options: SyncOptions,
  repos: { checkpoints: CheckpointsRepository; runs: SyncRunsRepository },
  logger: Logger,
  now: Date,
): Promise<RunPlan> {
  const { checkpoints } = repos;
  if (options.mode === 'full' || !isIncremental(adapter)) {
    if (options.mode === 'incremental' && !isIncremental(adapter)) return { mode: 'full', fallback: `${adapter.name} has no incremental sync` };
    return { mode: 'full' };
  }
  const stored = await checkpoints.load(adapter.name);
  if (stored === undefined) return { mode: 'full', fallback: 'no checkpoint yet' };
  const due = options.mode === 'auto' ? await fullRunDue(repos.runs, adapter.name, options.fullEveryMs, now) : undefined;
  if (due) return { mode: 'full', fallback: due };
  const parsed = adapter.checkpointSchema.safeParse(stored);
  if (!parsed.success) {
    logger.warn({ source: adapter.name }, 'stored checkpoint is invalid; running a full sync instead');
    return { mode: 'full', fallback: 'the stored checkpoint is invalid' };
  }
  return { mode: 'incremental', checkpoint: parsed.data };
}

/** Why a full run is due (the latest one started `fullEveryMs` or more ago), or undefined. */
async function fullRunDue(runs: SyncRunsRepository, source: string, fullEveryMs: number | undefined, now: Date): Promise<string | undefined> {
  if (fullEveryMs === undefined) return undefined;
  const last = await runs.lastFullRunStart(source);
  const every = formatHours(fullEveryMs);
  if (last === undefined) return `a full run is due (none recorded; one every ${every})`;
  const age = now.getTime() - Date.parse(last);
  return age >= fullEveryMs ? `a full run is due (the last one started ${formatHours(age)} ago; one every ${every})` : undefined;
}

function formatHours(ms: number): string {
  return ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(ms % 3_600_000 === 0 ? 0 : 1)} h` : `${Math.round(ms / 60_000)} min`;
}
