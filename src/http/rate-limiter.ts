import type { Response } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayError } from '../errors/gateway-error';
import type { RateLimitCounters } from './rate-limits/rate-limit-counters';
import type { RequestCounter } from './rate-limits/shared-counter';

/**
 * A request budget per client per fixed window, on by default. Every authenticated `/v1`
 * response (and every 401, which spends the caller's address's budget) carries truthful
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds until the window
 * resets, as the platform reads it); past the budget the answer is 429 RATE_LIMIT_EXCEEDED with
 * `Retry-After`. The platform slows down when fewer than ~30 % of the budget remain, so the
 * default budget sits well above what one gateway serves: the headers inform, a crawl is never
 * paced. Disabled (`RATE_LIMIT_REQUESTS=0`), it sends no headers at all: static values would be
 * worse than none. The counter lives where `RateLimitCounters` keeps it: in this process, in the
 * cluster primary (shared by the workers), or in Redis (shared by every replica).
 */
export class RateLimiter {
  private readonly limiter: RequestCounter;
  private readonly limitHeader: string;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    counters: RateLimitCounters,
  ) {
    this.limiter = counters.counter('requests', limit, windowSeconds);
    this.limitHeader = String(limit);
  }

  /** Spends one request of `key`'s budget; sets the headers; throws the 429 when it is spent. */
  async consume(key: string, res: Response): Promise<void> {
    try {
      const state = await this.limiter.consume(key);
      this.setHeaders(res, state);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.setHeaders(res, rejection);
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new GatewayError('RATE_LIMIT_EXCEEDED', `Rate limit of ${this.limit} requests per ${this.windowSeconds} s exceeded; retry after ${retryAfter} s.`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  }

  // setHeader rather than Express's res.set: these run on every request, and res.set walks an
  // object and checks each name for Content-Type first.
  private setHeaders(res: Response, state: RateLimiterRes): void {
    res.setHeader('X-RateLimit-Limit', this.limitHeader);
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
    res.setHeader('X-RateLimit-Reset', String(Math.max(0, Math.ceil(state.msBeforeNext / 1000))));
  }
}
