import { isIncremental, type Adapter } from '../adapters/adapter';
import type { Logger } from '../logging/create-logger';
import type { SyncMode, SyncRunsRepository } from '../staging/repositories/sync-runs-repository';
import type { SyncStore } from '../staging/write-path/sync-store';

/** The run a sync writes under, and where a resumed full run goes on from. */
export interface StartedRun {
  runId: number;
  resumed: boolean;
  /** The last checkpoint of the interrupted full run this one continues (valid for the adapter), if any. */
  resume?: unknown;
}

/**
 * Opens the run: a full run continues an interrupted full run of the source (from its last valid
 * checkpoint) instead of starting over; any other run still marked running is abandoned. Seen marks
 * of runs that ended are cleared: only a full run that may still resume needs its own.
 */
export async function startRun(
  deps: { adapter: Adapter; runs: SyncRunsRepository; store: SyncStore; logger: Logger; options?: { jobId?: string } },
  mode: SyncMode,
  stamp: () => string,
): Promise<StartedRun> {
  const jobId = deps.options?.jobId;
  const { adapter, runs, logger } = deps;
  const source = adapter.name;
  const interrupted = mode === 'full' ? await runs.interruptedFullRun(source) : undefined;
  let started: StartedRun;
  if (interrupted) {
    const raw = interrupted.checkpoint ? (JSON.parse(interrupted.checkpoint) as unknown) : undefined;
    const resume = raw !== undefined && isIncremental(adapter) && !adapter.checkpointSchema.safeParse(raw).success ? undefined : raw;
    started = { runId: interrupted.id, resumed: true, resume };
    if (jobId !== undefined) await runs.assignJob(interrupted.id, jobId);
    logger.info({ runId: interrupted.id, resume: resume !== undefined }, 'resuming an interrupted full sync');
  } else {
    started = { runId: await runs.start(source, mode, stamp(), jobId), resumed: false };
  }
  await runs.abandon(source, started.runId, stamp());
  // Seen marks matter only to a full run that may still resume; those of runs that ended (or
  // were abandoned above) would otherwise stay in sync_seen for good. The caller holds the lock.
  await deps.store.clearFinishedSeen(source);
  return started;
}
