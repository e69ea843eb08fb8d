import crypto from 'node:crypto';
import type { Config } from '../config/config-schema';
import type { Logger } from '../logging/create-logger';
import { GatewaySettingsRepository } from '../staging/repositories/gateway-settings-repository';
import { serveConnections } from '../lib/web-concurrency';
import { isStagingEmpty } from '../staging/database/is-staging-empty';
import { openStaging, resolveApiKeys, type Staging } from './open-staging';

export interface PreparedStaging {
  staging: Staging;
  keys: string[];
  /** Where a development key was generated (none configured), for the start-up message. */
  generatedAt?: string;
  skipTokenSecret: string;
}

/**
 * What `serve` does before it listens: open staging (migrating it), load the demo corpus into an
 * empty embedded database, settle the API keys (a development key is generated once) and the
 * `$skiptoken` secret (created once in the database). With `WEB_CONCURRENCY` > 1 only the
 * primary does this, once, before any worker starts: the workers (`worker: true`) find it all
 * done and only read it, so no two processes migrate, seed or create a secret at once. Each of
 * `workers` processes opens its share of `DATABASE_MAX_CONNECTIONS`.
 */
export async function prepareToServe(config: Config, logger: Logger, options: { worker: boolean; workers: number }): Promise<PreparedStaging> {
  const maxConnections = serveConnections(config.databaseMaxConnections, options.workers);
  if (config.databaseUrl && maxConnections * options.workers > config.databaseMaxConnections && !options.worker) {
    logger.warn(
      { databaseMaxConnections: config.databaseMaxConnections, workers: options.workers },
      'DATABASE_MAX_CONNECTIONS is under 2 a worker: each worker opens 2 Postgres connections',
    );
  }
  const staging = await openStaging(config, logger, { migrate: !options.worker, maxConnections, serving: true });
  try {
    const embedded = !config.databaseUrl;
    if (!options.worker && config.demoContent === 'auto' && embedded && config.nodeEnv !== 'production' && (await isStagingEmpty(staging.db))) {
      // Loaded only here: a gateway that serves no demo never loads its corpus or the adapter that stages it.
      const { seedDemo } = await import('../demo/seed-demo');
      const summary = await seedDemo(staging.db, staging.blobs);
      logger.info(summary, 'loaded the demo corpus into the empty embedded database (DEMO_CONTENT=off to skip)');
    }
    const { keys, generatedAt } = resolveApiKeys(config);
    const skipTokenSecret =
      config.skipTokenSecret ?? (await new GatewaySettingsRepository(staging.db).getOrCreate('skiptoken_secret', () => crypto.randomBytes(32).toString('hex')));
    return { staging, keys, ...(generatedAt ? { generatedAt } : {}), skipTokenSecret };
  } catch (error) {
    await staging.close();
    throw error;
  }
}
