import PgBoss from 'pg-boss';
import type { Config } from '../../config/config-schema';
import type { SyncRequester } from '../../http/webhooks/sync-requester';
import type { Logger } from '../../logging/create-logger';
import { DEAD_LETTER_QUEUE, SyncQueueState } from '../../staging/repositories/sync-queue-state';
import type { Staging } from '../open-staging';
import { queueName, syncQueueOptions, type SyncJobData } from './queue-scheduler';

/**
 * The `SyncRequester` of a gateway on Postgres: each request enqueues an incremental run of the
 * source on its queue (`<prefix><adapter>.incremental`), which a `sync-worker` works. The queue is
 * `stately` (pg-boss: at most one job of a queue waiting and one running), so requests that
 * arrive while one waits collapse into it (`send` answers null), and one arriving while a run
 * goes becomes the one run after it; requests arriving while a send is under way become one send. Nothing runs in the serving process.
 */
export class QueueSyncRequester implements SyncRequester {
  /** The send under way per source, and the sources asked for again meanwhile. */
  private readonly sending = new Map<string, Promise<unknown>>();
  private readonly again = new Set<string>();

  private constructor(
    private readonly boss: PgBoss,
    private readonly adapter: string,
    private readonly logger: Logger,
  ) {}

  /** Connects to the queue (creating its schema and the source's queue when no worker has yet). */
  static async start(config: Config, staging: Staging, adapter: string, logger: Logger): Promise<QueueSyncRequester> {
    // Only sends: the workers maintain the queue and run its schedules.
    const boss = new PgBoss({
      connectionString: config.databaseUrl,
      schema: config.syncQueueSchema,
      max: 2,
      application_name: 'content-gateway serve',
      supervise: false,
      schedule: false,
    });
    boss.on('error', (error) => logger.error({ err: error }, 'sync queue error'));
    const name = queueName(adapter, 'incremental');
    await new SyncQueueState(staging.db, config.syncQueueSchema).serialized(async () => {
      await boss.start();
      await boss.createQueue(DEAD_LETTER_QUEUE, { name: DEAD_LETTER_QUEUE });
      if (!(await boss.getQueue(name))) await boss.createQueue(name, { name, ...syncQueueOptions(config) });
    });
    return new QueueSyncRequester(boss, adapter, logger);
  }

  /**
   * One send at a time per source: requests that arrive while one is being sent (a flood of
   * replayed deliveries) become one send after it, so they cost one insert, not one each.
   */
  request(source: string): void {
    if (this.sending.has(source)) {
      this.again.add(source);
      return;
    }
    const sending = this.enqueue(source)
      .catch((error: unknown) => this.logger.error({ err: error, source }, 'could not enqueue the sync a webhook asked for'))
      .finally(() => {
        this.sending.delete(source);
        if (this.again.delete(source)) this.request(source);
      });
    this.sending.set(source, sending);
  }

  /** The job's id, or null when one already waits (the request joined it). */
  async enqueue(source: string): Promise<string | null> {
    const data: SyncJobData = { adapter: this.adapter, source, kind: 'incremental' };
    const id = await this.boss.send(queueName(this.adapter, 'incremental'), data);
    this.logger.info({ source, job: id ?? undefined, coalesced: id === null }, 'webhook: incremental sync enqueued');
    return id;
  }

  /** Waits for the requests being sent, then disconnects. */
  async stop(): Promise<void> {
    while (this.sending.size > 0) await Promise.all([...this.sending.values()]);
    await this.boss.stop({ graceful: true, wait: true, timeout: 5_000 });
  }
}
