import PgBoss from 'pg-boss';
import { supportsAccessOnly } from '../../adapters/adapter';
import type { Config } from '../../config/config-schema';
import { SyncLockedError } from '../../staging/repositories/sync-lock';
import { SyncRunsRepository } from '../../staging/repositories/sync-runs-repository';
import { DEAD_LETTER_QUEUE, SYNC_QUEUE_PREFIX, SyncQueueState } from '../../staging/repositories/sync-queue-state';
import { intervalCron } from './interval-cron';
import { jobEnding, runEndMessage } from './job-ending';
import type { SourceSchedule, SyncKind, SyncScheduler } from './sync-scheduler';
import { syncSource, type SourceSyncContext } from './sync-source';

/** What a job carries: the adapter to build, the source name its runs (and lock) go under, the kind of run. */
export interface SyncJobData {
  adapter: string;
  source: string;
  kind: SyncKind;
}

/** How long an idle worker waits between looks for a job. */
const POLL_SECONDS = 2;

/**
 * How often the workers (one of them per period, pg-boss's cron monitor) look for schedules that
 * are due, and how often the due ones are turned into jobs: a scheduled run starts within about
 * 5 + 2 + POLL_SECONDS seconds of its minute, where pg-boss's defaults (30 and 5) let it start
 * up to 37 s late. Each look is one small statement, so the shorter period costs the database
 * nothing it notices beside the job polls.
 */
const SCHEDULE_CHECK = { cronMonitorIntervalSeconds: 5, cronWorkerIntervalSeconds: POLL_SECONDS };

/** The `sync-worker` option each kind's interval comes from. */
const EVERY_OPTION: Record<SyncKind, string> = { incremental: '--every', full: '--full-every', access: '--access-every' };

export const queueName = (adapter: string, kind: SyncKind): string => `${SYNC_QUEUE_PREFIX}${adapter}.${kind}`;

/** The options of every sync queue: `stately` (one job waiting and one running per queue), retries with backoff, the dead-letter queue. */
export function syncQueueOptions(config: Config): Omit<PgBoss.Queue, 'name'> {
  return {
    policy: 'stately',
    retryLimit: config.syncJobRetries,
    retryDelay: config.syncJobRetryDelaySeconds,
    retryBackoff: true,
    expireInSeconds: config.syncJobTimeoutSeconds,
    deadLetter: DEAD_LETTER_QUEUE,
  };
}

/**
 * The source name a factory's adapter syncs under (its setting may rename it; the adapter's own
 * when it cannot be built now), and whether it can run access-only (it lists access without content).
 */
async function sourceOf(schedule: SourceSchedule, ctx: Omit<SourceSyncContext, 'signal'>): Promise<{ source: string; listsAccess: boolean }> {
  try {
    const adapter = await schedule.factory.create(ctx.runtime.env, { logger: ctx.logger });
    return { source: adapter.name, listsAccess: supportsAccessOnly(adapter) };
  } catch {
    return { source: schedule.factory.name, listsAccess: false };
  }
}

/**
 * Syncs as jobs on a Postgres-backed queue (pg-boss, in `SYNC_QUEUE_SCHEMA`), worked by any
 * number of `sync-worker` processes: a queue per source and kind of run, each with its cron
 * schedule; `stately` queues (at most one job of a source and kind waiting and one running,
 * across every machine; the source's sync lock keeps its incremental and full runs apart, while
 * its access-only runs have a lock of their own and run beside them); failed jobs
 * retried with exponential backoff, then moved to the dead-letter queue with their error. A
 * running sync's heartbeat is its lock's lease: every worker fails the jobs whose lease ran out
 * (their worker died), so another worker retries them, resuming from the source's checkpoint.
 */
export class QueueScheduler implements SyncScheduler {
  private readonly boss: PgBoss;

  constructor(
    private readonly schedules: readonly SourceSchedule[],
    private readonly ctx: Omit<SourceSyncContext, 'signal'>,
  ) {
    const { config } = ctx;
    this.boss = new PgBoss({
      connectionString: config.databaseUrl,
      schema: config.syncQueueSchema,
      max: 3,
      application_name: 'content-gateway sync-worker',
      ...SCHEDULE_CHECK,
    });
    this.boss.on('error', (error) => ctx.logger.error({ err: error }, 'sync queue error'));
  }

  /** Creates (or updates) each source's queues and schedules, and the dead-letter queue. */
  private async register(): Promise<Array<{ name: string; data: SyncJobData; fullEveryMs: number | undefined }>> {
    await this.boss.createQueue(DEAD_LETTER_QUEUE, { name: DEAD_LETTER_QUEUE });
    const queues: Array<{ name: string; data: SyncJobData; fullEveryMs: number | undefined }> = [];
    for (const schedule of this.schedules) {
      const { source, listsAccess: accessOnly } = await sourceOf(schedule, this.ctx);
      if (schedule.accessEveryMs !== undefined && !accessOnly)
        this.ctx.logger.warn(
          { adapter: schedule.factory.name },
          'no access-only runs for this adapter: it cannot read access without content (no permissions() and standalone liveFiles())',
        );
      const kinds: Array<[SyncKind, number | undefined]> = [
        ['incremental', schedule.everyMs],
        ['full', schedule.fullEveryMs],
        ['access', accessOnly ? schedule.accessEveryMs : undefined],
      ];
      for (const [kind, every] of kinds) {
        const name = queueName(schedule.factory.name, kind);
        const options = { name, ...syncQueueOptions(this.ctx.config) };
        await this.boss.createQueue(name, options);
        await this.boss.updateQueue(name, options);
        const data: SyncJobData = { adapter: schedule.factory.name, source, kind };
        if (every === undefined) await this.boss.unschedule(name);
        else await this.boss.schedule(name, intervalCron(every, EVERY_OPTION[kind]), data, { tz: 'UTC' });
        if (kind === 'incremental' && every !== undefined && (await this.overdue(source, every))) await this.boss.send(name, data);
        queues.push({ name, data, fullEveryMs: schedule.fullEveryMs });
      }
    }
    return queues;
  }

  /**
   * Whether the source's schedule is overdue: no run yet, or the latest started over `everyMs` ago
   * (the workers were down). Then a run is queued at once, as `sync --every` starts with a round;
   * the queue's policy keeps it to one however many workers start.
   */
  private async overdue(source: string, everyMs: number): Promise<boolean> {
    const latest = await new SyncRunsRepository(this.ctx.staging.db).latest(source);
    return !latest || Date.now() - Date.parse(latest.started_at) >= everyMs;
  }

  async run(signal: AbortSignal): Promise<void> {
    const state = new SyncQueueState(this.ctx.staging.db, this.ctx.config.syncQueueSchema);
    const queues = await state.serialized(async () => {
      await this.boss.start();
      return this.register();
    });
    const watchdog = this.watchdog(state);
    try {
      for (const queue of queues) {
        const factory = this.schedules.find((s) => s.factory.name === queue.data.adapter)!.factory;
        await this.boss.work<SyncJobData>(queue.name, { pollingIntervalSeconds: POLL_SECONDS, batchSize: 1 }, async ([job]) =>
          job
            ? this.work(queue.name, job, (ended) =>
                syncSource(factory, job.data.kind, queue.fullEveryMs, {
                  ...this.ctx,
                  signal,
                  jobId: job.id,
                  withRunEnd: jobEnding(this.boss, queue.name, job.id, ended),
                }),
              )
            : undefined,
        );
      }
      this.ctx.logger.info({ queues: queues.length, schema: this.ctx.config.syncQueueSchema }, 'sync worker started');
      await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    } finally {
      clearInterval(watchdog);
      // The running sync saw the abort and records itself as cancelled; its job fails and is retried elsewhere.
      await this.boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    }
  }

  /**
   * One job: its run, which ends the job in the transaction that records the run's end (jobEnding);
   * a run that did not succeed and could not end its job that way (it never got that far) fails
   * it here (to be retried); a source another run holds is tried again later.
   */
  private async work(name: string, job: PgBoss.Job<SyncJobData>, sync: (ended: { job: boolean }) => ReturnType<typeof syncSource>): Promise<object> {
    const ended = { job: false };
    try {
      const summary = await sync(ended);
      const run = { id: summary.runId, status: summary.status, error: summary.error };
      // Ended already (with the run's row): pg-boss's own completion after this returns finds the job no longer active and leaves it.
      if (summary.status !== 'succeeded' && !ended.job) throw new Error(runEndMessage(run));
      return { runId: summary.runId, status: summary.status };
    } catch (error) {
      if (!(error instanceof SyncLockedError)) throw error;
      // Another run of the source (of the other kind, or a `sync` from the CLI) is under way: this one waits its turn.
      this.ctx.logger.info({ queue: name, job: job.id, holder: error.holder }, 'sync job deferred: its source is being synced');
      await this.boss.sendAfter(name, job.data, {}, this.ctx.config.syncJobRetryDelaySeconds);
      return { deferred: error.message };
    }
  }

  /** Every third of a heartbeat: fail the jobs whose worker died, so that they are retried. */
  private watchdog(state: SyncQueueState): NodeJS.Timeout {
    const heartbeat = this.ctx.config.syncHeartbeatSeconds;
    const check = async (): Promise<void> => {
      for (const job of await state.jobsOfDeadWorkers(heartbeat, new Date())) {
        this.ctx.logger.warn({ job: job.id, queue: job.queue }, 'a sync job stopped heartbeating (its worker died): failing it, to be retried');
        await this.boss.fail(job.queue, job.id, { message: `its worker stopped heartbeating for ${heartbeat} s (died)` });
      }
    };
    const timer = setInterval(
      () => void check().catch((error: unknown) => this.ctx.logger.warn({ err: error }, 'sync queue watchdog failed')),
      Math.max(1000, (heartbeat * 1000) / 3),
    );
    timer.unref();
    return timer;
  }
}
