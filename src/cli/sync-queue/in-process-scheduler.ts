import { setTimeout as sleep } from 'node:timers/promises';
import { isAbortError } from '../../lib/abort-error';
import type { SourceSchedule, SyncScheduler } from './sync-scheduler';
import { syncSource, type SourceSyncContext } from './sync-source';

/**
 * The embedded (SQLite) scheduler, as `sync --every` runs: in this process, rounds that start
 * `everyMs` apart and never overlap, each source synced in turn (incremental, full when its
 * latest full run started `fullEveryMs` ago). A source that fails fails its own round only.
 */
export class InProcessScheduler implements SyncScheduler {
  constructor(
    private readonly schedules: readonly SourceSchedule[],
    private readonly ctx: Omit<SourceSyncContext, 'signal'>,
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const every = Math.min(...this.schedules.map((s) => s.everyMs));
    while (!signal.aborted) {
      const roundStarted = Date.now();
      for (const schedule of this.schedules) {
        if (signal.aborted) return;
        try {
          await syncSource(schedule.factory, 'incremental', schedule.fullEveryMs, { ...this.ctx, signal });
        } catch (error) {
          this.ctx.runtime.print(`${schedule.factory.name}: sync could not run — ${(error as Error).message}`);
        }
      }
      const wait = Math.max(0, roundStarted + every - Date.now());
      this.ctx.logger.info({ nextInMs: wait }, 'next sync round scheduled');
      await sleep(wait, undefined, { signal }).catch((error: unknown) => {
        if (!isAbortError(error)) throw error;
      });
    }
  }
}
