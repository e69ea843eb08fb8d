import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** A source's request budget: `take` resolves when one more request may be sent. */
export interface RequestBudget {
  take(signal: AbortSignal | undefined): Promise<void>;
  /** Requests that waited for the budget's window to end. */
  readonly waited: number;
}

export interface BudgetSpec {
  /** Requests per window. */
  requests: number;
  windowSeconds: number;
  /** The source's name: the key its budget is counted under. */
  source: string;
}

/** In-process counts, one per budget, kept across runs: a run that starts as another ends does not get a fresh window. */
const localCounters = new Map<string, RateLimiterMemory>();

function localCounter(spec: BudgetSpec): RateLimiterMemory {
  const key = `${spec.requests}/${spec.windowSeconds}`;
  let counter = localCounters.get(key);
  if (!counter) {
    counter = new RateLimiterMemory({ keyPrefix: `rest-budget-${key}`, points: spec.requests, duration: spec.windowSeconds });
    localCounters.set(key, counter);
  }
  return counter;
}

/**
 * At most `requests` per fixed window of `windowSeconds` to one source, whatever spends them: a
 * request past it waits for the window to end (it is not refused). Counted by rate-limiter-flexible,
 * the gateway's own rate-limit library: in this process, or in Redis (`REDIS_URL`) so that every
 * replica syncing the source shares one budget. A Redis that does not answer is not a reason to
 * stop a sync: the request is counted in this process instead (its insurance limiter) until it does.
 */
export class WindowBudget implements RequestBudget {
  private readonly limiter: RateLimiterAbstract;
  waited = 0;

  constructor(
    private readonly spec: BudgetSpec,
    redis?: { client: Redis; keyPrefix: string },
  ) {
    const local = localCounter(spec);
    this.limiter = redis
      ? new RateLimiterRedis({
          storeClient: redis.client,
          keyPrefix: `${redis.keyPrefix}rest-budget`,
          points: spec.requests,
          duration: spec.windowSeconds,
          rejectIfRedisNotReady: true,
          insuranceLimiter: local,
        })
      : local;
  }

  async take(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      try {
        await this.limiter.consume(this.spec.source, 1);
        return;
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        this.waited += 1;
        await sleep(Math.max(1, outcome.msBeforeNext), undefined, signal ? { signal } : {});
      }
    }
  }
}

/** A budget for one run and how to let go of what it holds (its Redis connection). */
export interface OpenBudget {
  budget: RequestBudget;
  close(): void;
}

const REDIS_WAIT_MS = 2_000;

/**
 * The manifest's `requester.rate_limit.budget` for one run of `source`: shared through Redis when
 * `REDIS_URL` is set (keys under `REDIS_KEY_PREFIX`, as the gateway's own limits), else counted in
 * this process. Undefined when the manifest sets no budget.
 */
export async function openBudget(
  spec: { requests: number; per_seconds: number } | undefined,
  source: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<OpenBudget | undefined> {
  if (!spec) return undefined;
  const budgetSpec = { requests: spec.requests, windowSeconds: spec.per_seconds, source };
  const url = env.REDIS_URL;
  if (!url) return { budget: new WindowBudget(budgetSpec), close: () => undefined };
  const { connectRedis, redisReady } = await import('../../lib/connect-redis'); // only a shared budget loads the Redis client
  const client = connectRedis(url);
  // Not ready in time: the first requests are counted in this process (the insurance limiter) until it is.
  await redisReady(client, REDIS_WAIT_MS);
  return { budget: new WindowBudget(budgetSpec, { client, keyPrefix: env.REDIS_KEY_PREFIX || 'content-gateway:' }), close: () => client.disconnect() };
}
