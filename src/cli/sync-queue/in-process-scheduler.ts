import { setTimeout as sleep } from 'node:timers/promises';
import { isAbortError } from '../../lib/abort-error';
import type { SourceSchedule, SyncKind, SyncScheduler } from './sync-scheduler';
import { syncSource, type SourceSyncContext } from './sync-source';

/**
 * The embedded (SQLite) scheduler, as `sync --every` runs: in this process, rounds that start
 * `everyMs` apart and never overlap, each source synced in turn (incremental, full when its
 * latest full run started `fullEveryMs` ago). Access-only runs, for sources that have an
 * `accessEveryMs`, go round in a loop of their own beside it, so a slow full run never delays
 * them. A source that fails fails its own round only.
 */
export class InProcessScheduler implements SyncScheduler {
  constructor(
    private readonly schedules: readonly SourceSchedule[],
    private readonly ctx: Omit<SourceSyncContext, 'signal'>,
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const withAccess = this.schedules.filter((s) => s.accessEveryMs !== undefined);
    await Promise.all([
      this.rounds(this.schedules, Math.min(...this.schedules.map((s) => s.everyMs)), 'incremental', signal),
      ...(withAccess.length ? [this.rounds(withAccess, Math.min(...withAccess.map((s) => s.accessEveryMs ?? Infinity)), 'access', signal)] : []),
    ]);
  }

  /** Rounds of one kind of run, `every` apart, until `signal` aborts. */
  private async rounds(schedules: readonly SourceSchedule[], every: number, kind: SyncKind, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const roundStarted = Date.now();
      for (const schedule of schedules) {
        if (signal.aborted) return;
        try {
          await syncSource(schedule.factory, kind, schedule.fullEveryMs, { ...this.ctx, signal });
        } catch (error) {
          this.ctx.runtime.print(`${schedule.factory.name}: ${kind === 'access' ? 'access-only ' : ''}sync could not run — ${(error as Error).message}`);
        }
      }
      const wait = Math.max(0, roundStarted + every - Date.now());
      this.ctx.logger.info({ nextInMs: wait, kind }, 'next sync round scheduled');
      await sleep(wait, undefined, { signal }).catch((error: unknown) => {
        if (!isAbortError(error)) throw error;
      });
    }
  }
}
