import { RateLimiterRes, type RateLimiterAbstract, type RateLimiterMemory } from 'rate-limiter-flexible';
import type { StoreHealth } from './store-health';

/** Spends points of a key's budget: resolves with the state, rejects with it (a RateLimiterRes) when spent. */
export interface RequestCounter {
  consume(key: string): Promise<RateLimiterRes>;
}

/**
 * A counter in a shared store (Redis or the cluster primary) that fails open: when the store
 * does not answer (refused, disconnected, timed out), the request is counted by a local
 * in-memory counter of the same budget instead, so the gateway keeps serving with each process
 * enforcing the limit on its own, rather than turning a Redis outage into a gateway outage (the
 * rate limit exists to pace the platform's crawler, not to guard anything secret; the
 * concurrency cap and the database still bound the load). For a second after a failure the
 * store is not asked at all, so a hung store does not add its timeout to every request.
 */
export class SharedCounter implements RequestCounter {
  constructor(
    private readonly shared: RateLimiterAbstract,
    private readonly local: RateLimiterMemory,
    private readonly health: StoreHealth,
  ) {}

  async consume(key: string): Promise<RateLimiterRes> {
    if (!this.health.shouldAsk()) {
      this.health.failed(undefined);
      return this.local.consume(key, 1);
    }
    let state: RateLimiterRes;
    try {
      state = await this.shared.consume(key, 1);
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) {
        this.health.answered();
        throw outcome;
      }
      this.health.failed(outcome);
      return this.local.consume(key, 1);
    }
    this.health.answered();
    return state;
  }
}
