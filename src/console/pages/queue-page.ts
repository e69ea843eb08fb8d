import { SyncQueueState, type DeadJob, type QueueCounts, type QueueSchedule } from '../../staging/repositories/sync-queue-state';
import { SyncRunsRepository } from '../../staging/repositories/sync-runs-repository';
import type { ConsolePage } from '../console-page';
import { runView, type RunView } from '../run-view';

export const DEAD_JOBS_SHOWN = 50;

/** What the console knows of the schedules and the queue: read-only (pg-boss ships no dashboard of its own to link). */
export interface QueueOverview {
  /** `postgres`: syncs are jobs on the pg-boss queue; `in-process`: with SQLite each `sync-worker` schedules its own runs. */
  scheduler: 'postgres' | 'in-process';
  /** False while no `sync-worker` has created the queue's tables. */
  queueExists: boolean;
  schema: string | null;
  schedules: QueueSchedule[];
  queues: QueueCounts[];
  dead: DeadJob[];
  /** Runs under way now (from `sync_runs`, whatever started them). */
  running: RunView[];
}

/** Schedules, and the jobs waiting, running, failed and dead, read as the `queue` command reads them. */
export const queuePage: ConsolePage<QueueOverview> = {
  path: 'queue',
  title: 'Schedules and queue',
  template: 'queue',
  async data(ctx) {
    const running = (await new SyncRunsRepository(ctx.db).running()).map(runView);
    if (!ctx.config.databaseUrl) return { scheduler: 'in-process', queueExists: false, schema: null, schedules: [], queues: [], dead: [], running };
    const state = new SyncQueueState(ctx.db, ctx.config.syncQueueSchema);
    const schema = ctx.config.syncQueueSchema;
    if (!(await state.exists())) return { scheduler: 'postgres', queueExists: false, schema, schedules: [], queues: [], dead: [], running };
    const [schedules, queues, dead] = await Promise.all([state.schedules(), state.counts(), state.deadJobs(DEAD_JOBS_SHOWN)]);
    return { scheduler: 'postgres', queueExists: true, schema, schedules, queues, dead, running };
  },
};
