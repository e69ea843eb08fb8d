import fs from 'node:fs';
import type { Config } from '../config/config-schema';
import { answerClientErrors } from '../http/answer-client-errors';
import { createApp } from '../http/create-app';
import type { GatewayMetrics } from '../http/gateway-metrics';
import { autoSecretChecks } from '../http/security/oauth-token-route';
import { MEMORY_STORE, type RateLimitStore } from '../http/rate-limits/rate-limit-store';
import { drainableServer } from '../lib/drain-server';
import { shareOf } from '../lib/web-concurrency';
import type { Logger } from '../logging/create-logger';
import { metricsFromPrimary } from './cluster-metrics';
import { leaveCluster } from './leave-cluster';
import type { PreparedStaging } from './prepare-to-serve';
import type { Runtime } from './runtime';
import { warnOfDroppedConnections } from './warn-of-dropped-connections';

/** How long start-up waits for Redis before serving anyway (counting locally until it answers). */
const REDIS_START_WAIT_MS = 3_000;

async function rateLimitStore(config: Config, logger: Logger, workers: number): Promise<{ store: RateLimitStore; close(): void }> {
  if (!config.redisUrl) return { store: workers > 1 ? { kind: 'cluster' } : MEMORY_STORE, close: () => undefined };
  // Loaded only here: a gateway without REDIS_URL never loads the Redis client.
  const { connectRedis, redisReady } = await import('../lib/connect-redis');
  const client = connectRedis(config.redisUrl);
  if (await redisReady(client, REDIS_START_WAIT_MS)) logger.info('rate limits are counted in Redis (REDIS_URL), shared by every replica');
  else logger.warn('Redis (REDIS_URL) does not answer yet: each process counts rate limits on its own until it does');
  return { store: { kind: 'redis', client, keyPrefix: config.redisKeyPrefix }, close: () => client.disconnect() };
}

/**
 * Serves the gateway in this process (the only one, or one of `workers`): builds the app, listens
 * (a worker's `listen` goes through the cluster primary, which shares one port between them),
 * and on SIGTERM drains it. Limits that hold for the whole host are divided between the
 * workers: `MAX_CONCURRENT_REQUESTS` (a client's share is of the worker's part), `MAX_CONNECTIONS`
 * and, when `auto`, the secret checks of `/oauth2/token`;
 * rate limits are counted in one place (the primary or Redis) instead. Resolves with the port.
 */
export async function serveApp(runtime: Runtime, config: Config, logger: Logger, prepared: PreparedStaging, workers: number): Promise<number> {
  const { staging, keys, skipTokenSecret } = prepared;
  const limits = await rateLimitStore(config, logger, workers);
  const appConfig: Config = {
    ...config,
    maxConcurrentRequests: shareOf(config.maxConcurrentRequests, workers),
    oauthTokenConcurrency:
      workers > 1
        ? shareOf(config.oauthTokenConcurrency === 'auto' ? autoSecretChecks() : config.oauthTokenConcurrency, workers)
        : config.oauthTokenConcurrency,
  };
  // A worker's /metrics answers the whole gateway's figures, gathered by the primary.
  let fromPrimary: ((own: GatewayMetrics) => Promise<string>) | undefined;
  const cluster = runtime.cluster?.isWorker ? runtime.cluster : undefined;
  // With WEBHOOKS_PUBLIC_URL: the work-management service's deliveries ask for incremental runs.
  const webhooks = config.webhooksPublicUrl ? await (await import('./serve-webhooks')).serveWebhooks(runtime, config, logger, staging) : undefined;
  // Imported only when on: a gateway without the console loads none of it (nor its libraries).
  const consoleApp = config.consoleEnabled
    ? (await import('./console-mount')).consoleMount(config, runtime, logger, staging, keys, skipTokenSecret)
    : undefined;
  const { app, metrics } = await createApp({
    config: appConfig,
    db: staging.db,
    blobs: staging.blobs,
    logger,
    apiKeys: keys,
    skipTokenSecret,
    rateLimitStore: limits.store,
    ...(webhooks ? { webhooks: { source: webhooks.source, requester: webhooks.requester } } : {}),
    ...(consoleApp ? { console: consoleApp } : {}),
    ...(cluster ? { metricsText: (own: GatewayMetrics) => (fromPrimary ? fromPrimary(own) : own.registry.metrics()) } : {}),
  });
  if (cluster) fromPrimary = metricsFromPrimary(cluster, metrics.registry);
  // Each worker accepts its own connections (the primary hands them out in turn).
  const maxConnections = shareOf(config.maxConnections, workers);
  const tls = config.tlsCertFile && config.tlsKeyFile ? { cert: fs.readFileSync(config.tlsCertFile), key: fs.readFileSync(config.tlsKeyFile) } : undefined;
  const server = await runtime.listen(app, {
    port: config.port,
    host: config.host,
    ...(tls ? { tls } : {}),
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    stallTimeoutMs: config.stallTimeoutMs,
    maxConnections,
    prepare: (server) => {
      answerClientErrors(server, logger);
      warnOfDroppedConnections(server, logger, maxConnections);
    },
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    {
      port,
      host: config.host,
      database: config.databaseUrl ? 'postgres' : config.sqlitePath,
      maxConcurrentRequests: appConfig.maxConcurrentRequests,
      maxConnections,
    },
    'gateway listening',
  );

  const drainable = drainableServer(server);
  runtime.onShutdown(async () => {
    logger.info({ graceMs: config.shutdownGraceMs }, 'shutting down: finishing in-flight requests');
    await drainable.drain(config.shutdownGraceMs);
    await webhooks?.close();
    await consoleApp?.close();
    await staging.close();
    limits.close();
    if (cluster?.worker) await leaveCluster(cluster.worker);
  }, config.shutdownGraceMs);
  return port;
}
