import { setTimeout as sleep } from 'node:timers/promises';
import { announcedLimit } from './rate-limit-headers';
import type { RequestBudget } from './request-budget';

export interface RequestGateOptions {
  /** Whether the API's rate-limit headers pace the requests (default in manifests: true). */
  respectHeaders: boolean;
  /** Requests left at or below which the next one waits for the window's reset. */
  minRemaining: number;
  /** The longest wait a reset may impose; a longer window is waited for this long, then the API decides. */
  maxWaitMs: number;
  /** The source's own request budget (in this process, or shared through Redis). */
  budget?: RequestBudget;
  now?: () => number;
}

/**
 * Every request of a run passes here before it is sent (listings, bodies, bytes, logins; the
 * outbound client calls `before` ahead of each attempt, outside the attempt's timeout): it
 * takes one request of the source's budget, then waits while the API's own rate-limit headers
 * said its window is spent, so the requester slows down before it is refused rather than after.
 * `Retry-After` on a refusal is the outbound client's (a 429 or 503 is waited out and retried).
 */
export class RequestGate {
  private pausedUntil = 0;
  private readonly now: () => number;
  /** Requests that waited for a window to reset. */
  waited = 0;

  constructor(private readonly options: RequestGateOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Requests that waited for the source's budget. */
  get budgetWaited(): number {
    return this.options.budget?.waited ?? 0;
  }

  async before(signal: AbortSignal | undefined): Promise<void> {
    await this.options.budget?.take(signal);
    const wait = this.pausedUntil - this.now();
    if (wait <= 0) return;
    this.waited += 1;
    await sleep(wait, undefined, signal ? { signal } : {});
  }

  after(headers: Headers): void {
    if (!this.options.respectHeaders) return;
    const now = this.now();
    const limit = announcedLimit(headers, now);
    if (!limit || limit.remaining > this.options.minRemaining) return;
    this.pausedUntil = Math.max(this.pausedUntil, now + Math.min(limit.resetMs, this.options.maxWaitMs));
  }

  /** `fetch` that reads every answer's rate-limit headers (the waiting is `before`'s, ahead of each attempt and its timeout). */
  observe(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const response = await inner(input, init);
      this.after(response.headers);
      return response;
    };
  }
}
