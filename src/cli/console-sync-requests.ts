import PgBoss from 'pg-boss';
import type { AdapterFactory } from '../adapters/adapter-factory';
import { adapterFactories } from '../adapters/adapter-registry';
import type { Config } from '../config/config-schema';
import type { SyncRequest } from '../console/console-page';
import type { Logger } from '../logging/create-logger';
import { SyncLockedError } from '../staging/repositories/sync-lock';
import { SyncQueueState } from '../staging/repositories/sync-queue-state';
import type { Staging } from './open-staging';
import type { Runtime } from './runtime';
import { queueName } from './sync-queue/queue-scheduler';
import { syncSource } from './sync-queue/sync-source';

/** The registered adapter whose runs go under `source` (its setting may rename it), if any. */
async function factoryOf(source: string, runtime: Runtime, logger: Logger): Promise<AdapterFactory | undefined> {
  for (const factory of adapterFactories) {
    const name = await factory.create(runtime.env, { logger }).then(
      (adapter) => adapter.name,
      () => factory.name,
    );
    if (name === source) return factory;
  }
  return undefined;
}

/**
 * With Postgres: a job on the source's queue (`sync.<adapter>.<kind>`), as its schedule would
 * send it, for the `sync-worker`s to run; the queue's `stately` policy keeps it to one waiting.
 * The console only sends: it neither works jobs nor maintains the queue.
 */
function queueRequests(config: Config, runtime: Runtime, logger: Logger, staging: Staging): SyncRequest & { close(): Promise<void> } {
  let started: Promise<PgBoss> | undefined;
  const boss = (): Promise<PgBoss> => {
    started ??= (async () => {
      const client = new PgBoss({
        connectionString: config.databaseUrl,
        schema: config.syncQueueSchema,
        max: 1,
        supervise: false,
        schedule: false,
        migrate: false,
      });
      client.on('error', (error) => logger.error({ err: error }, 'sync queue error (console)'));
      return client.start();
    })();
    return started;
  };
  const request = async (source: string, mode: 'full' | 'incremental'): Promise<string> => {
    const factory = await factoryOf(source, runtime, logger);
    if (!factory) return `No registered adapter syncs ${source}: nothing was queued.`;
    const name = queueName(factory.name, mode);
    // Read first, with no queue client: before a worker's first start there is no queue (nor its schema) to send to.
    if (!(await new SyncQueueState(staging.db, config.syncQueueSchema).exists()))
      return `No sync-worker has created the queue ${name} yet: start one (\`content-gateway sync-worker ${factory.name}\`).`;
    const client = await boss().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    if (!(await client.getQueue(name))) return `No sync-worker has created the queue ${name} yet: start one (\`content-gateway sync-worker ${factory.name}\`).`;
    const id = await client.send(name, { adapter: factory.name, source, kind: mode });
    return id
      ? `Queued ${mode === 'full' ? 'a full' : 'an incremental'} sync of ${source} (job ${id}): a sync-worker runs it.`
      : `A ${mode} sync of ${source} is already waiting in the queue.`;
  };
  return Object.assign(request, { close: async () => void (started ? await (await started).stop({ graceful: false, wait: true }) : undefined) });
}

/**
 * With SQLite there is no queue: the run starts in this process, in the background, as
 * `sync-worker` would run it (the source's sync lock keeps it from overlapping any other run).
 */
function inProcessRequests(config: Config, runtime: Runtime, logger: Logger, staging: Staging, signal: AbortSignal): SyncRequest {
  return async (source, mode) => {
    const factory = await factoryOf(source, runtime, logger);
    if (!factory) return `No registered adapter syncs ${source}: nothing was started.`;
    void syncSource(factory, mode, undefined, { runtime, config, logger, staging, signal }).catch((error: unknown) => {
      if (error instanceof SyncLockedError) logger.info({ source }, 'console sync request: the source is being synced already');
      else logger.error({ err: error, source }, 'console sync request failed');
    });
    return `Started ${mode === 'full' ? 'a full' : 'an incremental'} sync of ${source} in the gateway's process: Runs shows it when it ends.`;
  };
}

/** How the console's "retry now" and "run a full sync" reach the syncs, and what to close on shutdown. */
export function consoleSyncRequests(config: Config, runtime: Runtime, logger: Logger, staging: Staging): { request: SyncRequest; close(): Promise<void> } {
  if (config.databaseUrl) {
    const queued = queueRequests(config, runtime, logger, staging);
    return { request: queued, close: () => queued.close() };
  }
  const controller = new AbortController();
  return { request: inProcessRequests(config, runtime, logger, staging, controller.signal), close: async () => controller.abort() };
}
