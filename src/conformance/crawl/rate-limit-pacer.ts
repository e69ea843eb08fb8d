import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** The three header families the platform reads, most specific first. */
const FAMILIES = ['x-ratelimit', 'x-rate-limit', 'ratelimit'] as const;

export interface RateLimitHeaders {
  family: string;
  limit?: string;
  remaining?: string;
  reset?: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The rate-limit headers of a response, raw, or undefined when it carries none. */
export function readRateLimitHeaders(headers: IncomingHttpHeaders): RateLimitHeaders | undefined {
  for (const family of FAMILIES) {
    const limit = header(headers, `${family}-limit`);
    const remaining = header(headers, `${family}-remaining`);
    const reset = header(headers, `${family}-reset`);
    if (limit === undefined && remaining === undefined && reset === undefined) continue;
    const out: RateLimitHeaders = { family };
    if (limit !== undefined) out.limit = limit;
    if (remaining !== undefined) out.remaining = remaining;
    if (reset !== undefined) out.reset = reset;
    return out;
  }
  return undefined;
}

/**
 * Paces requests the way the platform does: on `Retry-After` every request waits until the
 * gateway said to come back; when `X-RateLimit-Remaining` drops below 30% of the limit, request
 * starts are spread over what is left of the window (`Reset` seconds), instead of bursting into a
 * 429. Above 30% there is no pacing at all.
 */
export class RateLimitPacer {
  private pausedUntil = 0;
  private spacingMs = 0;
  private nextStart = 0;
  waitedMs = 0;
  slowdowns = 0;

  constructor(
    private readonly options: {
      threshold?: number;
      maxSpacingMs?: number;
      maxPauseMs?: number;
      now?: () => number;
      sleep?: (ms: number) => Promise<void>;
    } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private sleep(ms: number): Promise<void> {
    return (this.options.sleep ?? sleep)(ms);
  }

  /** Waits until this request may start. */
  async beforeRequest(): Promise<void> {
    const now = this.now();
    const start = Math.max(now, this.pausedUntil, this.spacingMs > 0 ? this.nextStart : 0);
    this.nextStart = start + this.spacingMs;
    const wait = start - now;
    if (wait > 0) {
      this.waitedMs += wait;
      await this.sleep(wait);
    }
  }

  /** Learns from a response's rate-limit headers. */
  observe(limits: RateLimitHeaders | undefined): void {
    if (!limits) return;
    const limit = Number(limits.limit);
    const remaining = Number(limits.remaining);
    if (!Number.isFinite(limit) || !Number.isFinite(remaining) || limit <= 0) return;
    let resetSeconds = Number(limits.reset);
    if (!Number.isFinite(resetSeconds) || resetSeconds < 0) resetSeconds = 60;
    // Some gateways send the reset as epoch seconds rather than seconds from now.
    if (resetSeconds > 1e9) resetSeconds = Math.max(0, resetSeconds - this.now() / 1000);
    const maxSpacing = this.options.maxSpacingMs ?? 5000;
    if (remaining / limit >= (this.options.threshold ?? 0.3)) {
      this.spacingMs = 0;
      return;
    }
    if (this.spacingMs === 0) this.slowdowns++;
    if (remaining <= 0) {
      this.pause(resetSeconds * 1000);
      this.spacingMs = Math.min(maxSpacing, Math.max(1, (resetSeconds * 1000) / Math.max(1, limit * 0.3)));
      return;
    }
    this.spacingMs = Math.min(maxSpacing, Math.max(1, (resetSeconds * 1000) / remaining));
  }

  /** Stops every request until `ms` from now (capped). */
  pause(ms: number): void {
    const capped = Math.min(ms, this.options.maxPauseMs ?? 60_000);
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + capped);
  }
}
