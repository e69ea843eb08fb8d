import { Redis } from 'ioredis';

/** A shared-store command slower than this counts as a failure (the request is counted locally). */
const COMMAND_TIMEOUT_MS = 500;

/**
 * A Redis client for state shared between processes (rate-limit counters) that never makes a
 * request wait for Redis to come back: commands fail at once while it is disconnected (no
 * offline queue) and after half a second when it hangs, and the client keeps reconnecting in
 * the background (at most every 2 s). Its `error` events are swallowed here: the caller learns
 * of an outage from failing commands (`StoreHealth` logs it once), not from one event per retry.
 */
export function connectRedis(url: string): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  client.on('error', ignore);
  return client;
}

function ignore(): void {}

/** Resolves true once `client` is connected, false if it is not within `timeoutMs`. */
export function redisReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(done, timeoutMs, false);
    client.once('ready', onReady);
  });
}
