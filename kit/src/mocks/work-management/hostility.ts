/**
 * Realistic hostility, all configurable and changeable at run time (`PATCH /_admin/hostility`):
 * per-token rate limits answering 429 with Retry-After, injected latency and 5xx faults, and
 * short-lived pre-signed URLs and tokens.
 */
import { Random } from './random';

export interface Hostility {
  /** Standard limiter: requests per token per minute; 0 turns it off. Rejected requests count. */
  rateLimitPerMinute: number;
  /** Reading events (`GET /events`, `GET /workspaces/{gid}/events`): a budget of its own, higher (seed, Events rule 4); 0 turns it off. */
  eventsRateLimitPerMinute: number;
  /** Concurrent limiter: GETs and writes in flight per token (independent pools); 0 turns it off. */
  maxConcurrentReads: number;
  maxConcurrentWrites: number;
  /** Retry-After (seconds) given to a concurrency rejection. */
  concurrencyRetryAfterSec: number;
  /** Latency added to every API request, drawn uniformly from [min, max] milliseconds. */
  latencyMs: { min: number; max: number };
  /** Share of API requests (0..1) answered with an injected fault instead of being served. */
  faultRate: number;
  faultStatuses: number[];
  /** Attachment download_url lifetime (the real one lasts about 2 minutes). */
  downloadUrlTtlMs: number;
  /** Export download_url lifetime (about 1 hour). */
  exportUrlTtlMs: number;
  /** Pagination offset token lifetime (observed: 15 minutes). */
  offsetTokenTtlMs: number;
  /** Events sync token lifetime (24 hours at most). */
  syncTokenTtlMs: number;
  /** Share of events (0..1) never delivered: the events stream is at most once. */
  eventLossRate: number;
  /** First wait before a failed webhook delivery is retried (doubling, a bounded number of attempts). */
  webhookRetryDelayMs: number;
  /** How long a job (duplication, export) takes to reach `succeeded`. */
  jobDurationMs: number;
  /** Seeds the fault, latency and event-loss draws, so a run is reproducible. */
  seed: string;
}

export const DEFAULT_HOSTILITY: Hostility = {
  rateLimitPerMinute: 1500,
  // The seed gives no numbers, only "higher": four times the resources' budget.
  eventsRateLimitPerMinute: 6000,
  maxConcurrentReads: 50,
  maxConcurrentWrites: 15,
  concurrencyRetryAfterSec: 1,
  latencyMs: { min: 0, max: 0 },
  faultRate: 0,
  faultStatuses: [500, 503],
  downloadUrlTtlMs: 120_000,
  exportUrlTtlMs: 3_600_000,
  offsetTokenTtlMs: 900_000,
  syncTokenTtlMs: 86_400_000,
  eventLossRate: 0,
  webhookRetryDelayMs: 1_000,
  jobDurationMs: 2_000,
  seed: 'hostility',
};

/** Merges a partial override (nested latency included) into settings. */
export function applyHostility(base: Hostility, patch: Partial<Hostility>): Hostility {
  return {
    ...base,
    ...patch,
    latencyMs: { ...base.latencyMs, ...(patch.latencyMs ?? {}) },
    faultStatuses: patch.faultStatuses ?? base.faultStatuses,
  };
}

export type Acquired = { ok: true; release: () => void } | { ok: false; retryAfterSec: number; reason: 'rate' | 'concurrency' };

interface TokenState {
  windowStart: number;
  count: number;
  reads: number;
  writes: number;
}

/** The standard (per-minute) and concurrent limiters, per token. */
export class RateLimiter {
  private readonly state = new Map<string, TokenState>();

  constructor(
    private readonly settings: () => Hostility,
    private readonly now: () => number,
  ) {}

  /**
   * Takes `reads + writes` request slots at once against `perMinute` (the standard limit unless
   * given: events have their own key and limit), all or nothing (a batch counts each action).
   * Every request asked for counts against the minute, admitted or not.
   */
  acquire(token: string, reads: number, writes: number, perMinute = this.settings().rateLimitPerMinute): Acquired {
    const s = this.settings();
    const now = this.now();
    let st = this.state.get(token);
    if (!st) {
      st = { windowStart: now, count: 0, reads: 0, writes: 0 };
      this.state.set(token, st);
    }
    if (now - st.windowStart >= 60_000) {
      st.windowStart = now;
      st.count = 0;
    }
    st.count += reads + writes;
    if (perMinute > 0 && st.count > perMinute) {
      return { ok: false, reason: 'rate', retryAfterSec: Math.max(1, Math.ceil((st.windowStart + 60_000 - now) / 1000)) };
    }
    if ((s.maxConcurrentReads > 0 && st.reads + reads > s.maxConcurrentReads) || (s.maxConcurrentWrites > 0 && st.writes + writes > s.maxConcurrentWrites)) {
      return { ok: false, reason: 'concurrency', retryAfterSec: Math.max(1, s.concurrencyRetryAfterSec) };
    }
    st.reads += reads;
    st.writes += writes;
    const held = st;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        held.reads -= reads;
        held.writes -= writes;
      },
    };
  }

  reset(): void {
    this.state.clear();
  }
}

/** Seeded draws for injected faults and latency. */
export class FaultInjector {
  private rng: Random;
  private count = 0;

  constructor(private readonly settings: () => Hostility) {
    this.rng = new Random(settings().seed);
  }

  reseed(seed: string): void {
    this.rng = new Random(seed);
  }

  /** A status to answer with instead of serving, or undefined. */
  fault(): number | undefined {
    const s = this.settings();
    if (s.faultRate <= 0 || s.faultStatuses.length === 0) return undefined;
    this.count++;
    return this.rng.chance(s.faultRate) ? this.rng.pick(s.faultStatuses) : undefined;
  }

  latency(): number {
    const { min, max } = this.settings().latencyMs;
    if (max <= 0) return 0;
    return Math.round(min + this.rng.next() * Math.max(0, max - min));
  }

  get drawn(): number {
    return this.count;
  }
}
