import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../logging/create-logger';

/** How long a process counts on its own after the shared store failed, before it asks it again. */
export const STORE_RETRY_MS = 1_000;

/**
 * Whether the shared rate-limit store (Redis, or the cluster primary) answers. When it does not,
 * each process counts on its own (fail open, see `SharedCounter`); this says so once per outage
 * in the log (a warning when it goes, a line when it is back: not one per request), in a gauge
 * (`content_gateway_rate_limit_store_up`) and in a counter of the requests counted locally
 * (`content_gateway_rate_limit_fallback_total`), which is what to alert on. The reason logged is
 * the client's error message with any `user:password@` removed: never the store's URL or secret.
 */
export class StoreHealth {
  private up = true;
  private retryAt = 0;
  private readonly upGauge: Gauge;
  private readonly fallbacks: Counter;

  constructor(
    private readonly store: string,
    private readonly logger: Logger,
    registry: Registry,
    private readonly now: () => number = Date.now,
  ) {
    const registers = [registry];
    this.upGauge = new Gauge({
      name: 'content_gateway_rate_limit_store_up',
      help: 'Whether the shared rate-limit store answers (1) or this process counts on its own (0).',
      labelNames: ['store'],
      aggregator: 'min',
      registers,
    });
    this.fallbacks = new Counter({
      name: 'content_gateway_rate_limit_fallback_total',
      help: 'Requests counted in this process because the shared rate-limit store did not answer.',
      labelNames: ['store'],
      registers,
    });
    this.upGauge.set({ store }, 1);
    this.fallbacks.inc({ store }, 0);
  }

  /** False for a moment after a failure: the caller counts locally without waiting on the store. */
  shouldAsk(): boolean {
    return this.up || this.now() >= this.retryAt;
  }

  answered(): void {
    if (this.up) return;
    this.up = true;
    this.upGauge.set({ store: this.store }, 1);
    this.logger.info({ store: this.store }, 'rate-limit store answers again: limits are shared again');
  }

  failed(error: unknown): void {
    this.fallbacks.inc({ store: this.store });
    if (!this.up) {
      if (error !== undefined) this.retryAt = this.now() + STORE_RETRY_MS;
      return;
    }
    this.up = false;
    this.retryAt = this.now() + STORE_RETRY_MS;
    this.upGauge.set({ store: this.store }, 0);
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\/\/[^@\s/]*@/g, '//');
    this.logger.warn(
      { store: this.store, reason },
      'rate-limit store unreachable: each process counts on its own until it answers (limits not shared meanwhile)',
    );
  }
}
