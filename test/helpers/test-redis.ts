import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { connectRedis, redisReady } from '../../src/lib/connect-redis';

/** The Redis this run shares limits through, when TEST_REDIS_URL is set (CI sets it). */
export const testRedisUrl: string | undefined = process.env.TEST_REDIS_URL;

/** `describe` when Redis is available, else `describe.skip` (global-setup says so once, visibly). */
export const describeWithRedis = testRedisUrl ? describe : describe.skip;

/** A key prefix no other test file (or other run on the same Redis) uses. */
export function uniqueKeyPrefix(): string {
  return `test:${crypto.randomBytes(6).toString('hex')}:`;
}

/** A gateway-style client (`connectRedis`), connected, for `url` (default: TEST_REDIS_URL). */
export async function connectTestRedis(url = testRedisUrl): Promise<Redis> {
  if (!url) throw new Error('TEST_REDIS_URL is not set');
  const client = connectRedis(url);
  if (!(await redisReady(client, 5_000))) throw new Error(`Redis at ${url} did not answer within 5 s`);
  return client;
}

/** Deletes every key under `prefix` (what a test wrote), then disconnects. */
export async function dropKeys(prefix: string): Promise<void> {
  if (!testRedisUrl) return;
  const admin = new Redis(testRedisUrl);
  try {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
  } finally {
    admin.disconnect();
  }
}
