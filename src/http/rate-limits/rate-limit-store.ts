import type { Redis } from 'ioredis';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';

/**
 * Where rate-limit counters live, chosen by the composition root:
 * - `memory`: in this process (one gateway process, the embedded default: no Redis);
 * - `cluster`: in the node:cluster primary, which every worker asks over IPC, so the workers of
 *   one gateway share one count (`WEB_CONCURRENCY` > 1 without `REDIS_URL`);
 * - `redis`: in Redis, shared by every process of every replica (`REDIS_URL`).
 */
export type RateLimitStore = { kind: 'memory' } | { kind: 'cluster' } | { kind: 'redis'; client: Redis; keyPrefix: string };

export const MEMORY_STORE: RateLimitStore = { kind: 'memory' };

/**
 * In the cluster primary, before the workers start: keeps the counts that workers with the
 * `cluster` store ask for over IPC (rate-limiter-flexible's `RateLimiterClusterMaster`, one
 * in-memory counter per limiter, created on a worker's first request).
 */
export function keepClusterCounts(): void {
  new RateLimiterClusterMaster();
}
