import type { RequestHandler } from 'express';
import type { Config } from '../config/config-schema';
import { CONSOLE_PAGES } from '../console/console-pages';
import { CONSOLE_PATH, consoleRouter } from '../console/console-router';
import type { Logger } from '../logging/create-logger';
import { consoleSyncRequests } from './console-sync-requests';
import type { Staging } from './open-staging';
import type { Runtime } from './runtime';

/**
 * The operator console, as `serve` mounts it when `CONSOLE_ENABLED` (this module, and the
 * console's with their libraries, are imported only then). `close` stops what its actions started.
 */
export function consoleMount(
  config: Config,
  runtime: Runtime,
  logger: Logger,
  staging: Staging,
  crawlKeys: readonly string[],
): { path: string; router: RequestHandler; close(): Promise<void> } {
  if (!config.consoleAdminKey) throw new Error('CONSOLE_ADMIN_KEY is required when CONSOLE_ENABLED=true');
  const syncs = consoleSyncRequests(config, runtime, logger, staging);
  const router = consoleRouter({
    ctx: { db: staging.db, config, logger: logger.child({ console: true }), now: () => new Date(), requestSync: syncs.request },
    pages: CONSOLE_PAGES,
    adminKey: config.consoleAdminKey,
    crawlKeys,
    secure: Boolean(config.tlsCertFile) || (config.publicBaseUrl?.startsWith('https:') ?? false),
  });
  return { path: CONSOLE_PATH, router, close: () => syncs.close() };
}
