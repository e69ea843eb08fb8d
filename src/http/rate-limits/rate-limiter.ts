import type { Response } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayError } from '../../errors/gateway-error';
import type { RequestCounter } from './shared-counter';

/**
 * A budget per key per fixed window: the `/v1` request budget per client, on by default, and the
 * failed-authentication budget per address (`AUTH_FAILURE_LIMIT`, spent only by 401s). Every
 * response that spends one carries its truthful `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
 * `X-RateLimit-Reset` (seconds until the window resets, as the platform reads it); past the budget
 * the answer is 429 RATE_LIMIT_EXCEEDED with `Retry-After`. The platform slows down when fewer
 * than ~30 % of the budget remain, so the default request budget sits well above what one gateway
 * serves: the headers inform, a crawl is never paced. Disabled (`RATE_LIMIT_REQUESTS=0`), it sends
 * no headers at all: static values would be worse than none. The counter lives where
 * `RateLimitCounters` keeps it: in this process, in the cluster primary (shared by the workers),
 * or in Redis (shared by every replica).
 */
export class RateLimiter {
  private readonly limitHeader: string;

  /** `what` names what is counted, in the 429's message: `requests`, `failed authentications from this address`. */
  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly limiter: RequestCounter,
    private readonly what = 'requests',
  ) {
    this.limitHeader = String(limit);
  }

  /** Spends one of `key`'s budget; sets the headers; throws the 429 when it is spent. */
  async consume(key: string, res: Response): Promise<void> {
    try {
      const state = await this.limiter.consume(key);
      this.setHeaders(res, state);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.setHeaders(res, rejection);
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new GatewayError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${this.limit} ${this.what} per ${this.windowSeconds} s exceeded; retry after ${retryAfter} s.`,
        {
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
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
