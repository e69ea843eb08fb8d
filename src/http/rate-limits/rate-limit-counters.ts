import { RateLimiterCluster, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Registry } from 'prom-client';
import type { Logger } from '../../logging/create-logger';
import type { RateLimitStore } from './rate-limit-store';
import { SharedCounter, type RequestCounter } from './shared-counter';
import { StoreHealth } from './store-health';

/** How long a worker waits for the cluster primary's count before it counts on its own. */
const CLUSTER_TIMEOUT_MS = 1_000;

/**
 * Makes the gateway's rate-limit counters (the `/v1` budget, the token endpoint's budgets) in
 * the configured store, all reporting to one `StoreHealth`. Each counter is a fixed window of
 * `points` per `durationSeconds` per key, in whichever store: the `X-RateLimit-*` headers built
 * from its answers are the shared count, not this process's share of it.
 */
export class RateLimitCounters {
  private readonly health: StoreHealth | undefined;

  constructor(
    private readonly store: RateLimitStore,
    logger: Logger,
    registry: Registry,
  ) {
    this.health = store.kind === 'memory' ? undefined : new StoreHealth(store.kind, logger, registry);
  }

  counter(name: string, points: number, durationSeconds: number): RequestCounter {
    const local = new RateLimiterMemory({ keyPrefix: name, points, duration: durationSeconds });
    if (!this.health || this.store.kind === 'memory') return local;
    if (this.store.kind === 'cluster') {
      return new SharedCounter(
        new RateLimiterCluster({ keyPrefix: name, points, duration: durationSeconds, timeoutMs: CLUSTER_TIMEOUT_MS }),
        local,
        this.health,
      );
    }
    const shared = new RateLimiterRedis({
      storeClient: this.store.client,
      keyPrefix: `${this.store.keyPrefix}${name}`,
      points,
      duration: durationSeconds,
      // Disconnected: fail at once (and count locally) instead of waiting for a reconnection.
      rejectIfRedisNotReady: true,
      // A key past its budget is refused from memory until its window ends: a flood of refused
      // requests costs Redis nothing.
      inMemoryBlockOnConsumed: points + 1,
    });
    return new SharedCounter(shared, local, this.health);
  }
}
