import { workManagementAdapterFactory } from '../adapters/work-management/work-management-adapter-factory';
import type { Config } from '../config/config-schema';
import type { SyncRequester } from '../http/webhooks/sync-requester';
import { WEBHOOKS_PATH } from '../http/webhooks/webhook-receiver-route';
import type { Logger } from '../logging/create-logger';
import { CoalescingSyncRequester } from '../sync/coalescing-sync-requester';
import type { Staging } from './open-staging';
import type { Runtime } from './runtime';
import { syncSource } from './sync-queue/sync-source';

/** What `serve` mounts at `/webhooks/<source>`, and how to stop what it started. */
export interface ServedWebhooks {
  source: string;
  requester: SyncRequester;
  close(): Promise<void>;
}

/** The source name the work-management adapter syncs under; a clear error when it is not configured. */
async function webhookSource(runtime: Runtime, logger: Logger): Promise<string> {
  try {
    return (await workManagementAdapterFactory.create(runtime.env, { logger })).name;
  } catch (error) {
    throw new Error(`WEBHOOKS_PUBLIC_URL is set, but the work-management adapter is not configured: ${(error as Error).message}`, { cause: error });
  }
}

/** In this process: each request runs an incremental sync here, coalesced; a source locked elsewhere runs after a wait. */
function inProcessRequester(runtime: Runtime, config: Config, logger: Logger, staging: Staging): ServedWebhooks['requester'] & { close(): Promise<void> } {
  const controller = new AbortController();
  const retryInSeconds = config.syncJobRetryDelaySeconds;
  const requester = new CoalescingSyncRequester(
    () => syncSource(workManagementAdapterFactory, 'incremental', undefined, { runtime, config, logger, staging, signal: controller.signal }),
    (source, error) => logger.error({ source, err: error }, 'the sync a webhook asked for failed'),
    {
      busyRetryMs: retryInSeconds * 1000,
      onBusy: (source, error) =>
        logger.info({ source, holder: error.holder, retryInSeconds }, 'webhook: the source is being synced elsewhere; one more run after it'),
    },
  );
  return {
    request: (source) => requester.request(source),
    close: async () => {
      requester.stop();
      controller.abort();
      await requester.idle();
    },
  };
}

/**
 * The webhook receiver of `serve`, when `WEBHOOKS_PUBLIC_URL` is set: the work-management adapter's
 * deliveries (at `<WEBHOOKS_PUBLIC_URL>/webhooks/<source>`) ask for an incremental run, run here
 * with SQLite, enqueued for `sync-worker` with Postgres. Undefined when the setting is unset.
 */
export async function serveWebhooks(runtime: Runtime, config: Config, logger: Logger, staging: Staging): Promise<ServedWebhooks | undefined> {
  if (!config.webhooksPublicUrl) return undefined;
  const source = await webhookSource(runtime, logger);
  const target = webhookTarget(config.webhooksPublicUrl, source);
  if (config.databaseUrl) {
    const { QueueSyncRequester } = await import('./sync-queue/queue-sync-requester');
    const queue = await QueueSyncRequester.start(config, staging, workManagementAdapterFactory.name, logger);
    logger.info({ source, target, via: 'sync queue' }, 'receiving webhooks');
    return { source, requester: queue, close: () => queue.stop() };
  }
  const requester = inProcessRequester(runtime, config, logger, staging);
  logger.info({ source, target, via: 'this process' }, 'receiving webhooks');
  return { source, requester, close: requester.close };
}

/** Where the service delivers a source's webhooks, given the gateway's public URL; with a resource, that webhook's (each has a secret of its own). */
export function webhookTarget(publicUrl: string, source: string, resource?: string): string {
  const base = `${publicUrl.replace(/\/+$/, '')}${WEBHOOKS_PATH}/${source}`;
  return resource === undefined ? base : `${base}?${new URLSearchParams({ resource }).toString()}`;
}
