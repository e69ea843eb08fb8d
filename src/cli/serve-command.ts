import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { requirePublicHost } from '../config/require-public-host';
import { seedDemo } from '../demo/seed-demo';
import { answerClientErrors } from '../http/answer-client-errors';
import { createApp } from '../http/create-app';
import { MEMORY_STORE, type RateLimitStore } from '../http/rate-limits/rate-limit-store';
import { connectRedis, redisReady } from '../lib/connect-redis';
import { drainableServer } from '../lib/drain-server';
import { createLogger } from '../logging/create-logger';
import { GatewaySettingsRepository } from '../staging/gateway-settings-repository';
import { isStagingEmpty } from '../staging/is-staging-empty';
import { openStaging, resolveApiKeys } from './open-staging';
import type { Runtime } from './runtime';

/** How long start-up waits for Redis before serving anyway (counting locally until it answers). */
const REDIS_START_WAIT_MS = 3_000;

export function registerServeCommand(program: Command, runtime: Runtime): void {
  program
    .command('serve')
    .description(
      'Run the gateway: migrate the staging database, load the demo corpus into an empty embedded database, and serve /v1. With NODE_ENV=production it needs GATEWAY_API_KEY, and PUBLIC_BASE_URL or ALLOWED_HOSTS (links must not follow whatever Host a client sends).',
    )
    .action(async () => {
      const config = loadConfig(runtime.env);
      requirePublicHost(config);
      const logger = createLogger({ level: config.logLevel });
      const staging = await openStaging(config, logger);

      const embedded = !config.databaseUrl;
      if (config.demoContent === 'auto' && embedded && config.nodeEnv !== 'production' && (await isStagingEmpty(staging.db))) {
        const summary = await seedDemo(staging.db, staging.blobs);
        logger.info(summary, 'loaded the demo corpus into the empty embedded database (DEMO_CONTENT=off to skip)');
      }

      const { keys, generatedAt } = resolveApiKeys(config);
      const skipTokenSecret =
        config.skipTokenSecret ?? (await new GatewaySettingsRepository(staging.db).getOrCreate('skiptoken_secret', () => crypto.randomBytes(32).toString('hex')));
      const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
      if (redis) {
        if (await redisReady(redis, REDIS_START_WAIT_MS)) logger.info('rate limits are counted in Redis (REDIS_URL), shared by every replica');
        else logger.warn('Redis (REDIS_URL) does not answer yet: each process counts rate limits on its own until it does');
      }
      const rateLimitStore: RateLimitStore = redis ? { kind: 'redis', client: redis, keyPrefix: config.redisKeyPrefix } : MEMORY_STORE;
      const { app } = await createApp({ config, db: staging.db, blobs: staging.blobs, logger, apiKeys: keys, skipTokenSecret, rateLimitStore });
      const tls = config.tlsCertFile && config.tlsKeyFile ? { cert: fs.readFileSync(config.tlsCertFile), key: fs.readFileSync(config.tlsKeyFile) } : undefined;
      const server = await runtime.listen(app, {
        port: config.port,
        host: config.host,
        ...(tls ? { tls } : {}),
        headersTimeoutMs: config.headersTimeoutMs,
        requestTimeoutMs: config.requestTimeoutMs,
        keepAliveTimeoutMs: config.keepAliveTimeoutMs,
        prepare: (server) => answerClientErrors(server, logger),
      });
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : config.port;
      logger.info({ port, host: config.host, database: embedded ? config.sqlitePath : 'postgres' }, 'gateway listening');
      runtime.print(`Content gateway listening on ${tls ? 'https' : 'http'}://localhost:${port}/v1/files`);
      if (generatedAt) runtime.print(`No GATEWAY_API_KEY set: using the development key in ${generatedAt}`);

      const drainable = drainableServer(server);
      runtime.onShutdown(async () => {
        logger.info({ graceMs: config.shutdownGraceMs }, 'shutting down: finishing in-flight requests');
        await drainable.drain(config.shutdownGraceMs);
        await staging.close();
        redis?.disconnect();
      }, config.shutdownGraceMs);
    });
}
