/**
 * Rate limits and fault injection on the simulator's public APIs, as the work-management mock has
 * them, configurable at start and at run time (`PATCH /_admin/hostility`): a per-family,
 * per-caller limit of requests a minute answering 429 with `Retry-After` (on the simulator clock),
 * injected latency, and a share of requests answered with an injected 500, the one server error
 * the seed documents (seeded, reproducible).
 */
import crypto from 'node:crypto';
import { ApiError } from './api/api-error';
import type { Family } from './api/lifecycle-table';

export interface Hostility {
  /** Requests a minute per caller and API family (Data API official pipeline: 429 → wait 60 s); 0 turns it off. */
  rateLimitPerMinute: Record<Family, number>;
  /** Latency added to every API request, drawn uniformly from [min, max] milliseconds. */
  latencyMs: { min: number; max: number };
  /** Share (0..1) of API requests answered with one of `faultStatuses` instead of being served. */
  faultRate: number;
  /** Of `DOCUMENTED_FAULTS` only: the seed's status tables list 500 as the one server error. */
  faultStatuses: number[];
  seed: string;
}

export const DEFAULT_HOSTILITY: Hostility = {
  // The Message API's published limit is 120 a minute per organization; the others publish none.
  rateLimitPerMinute: { conversations: 600, data: 600, message: 120, auth: 600 },
  latencyMs: { min: 0, max: 0 },
  faultRate: 0,
  faultStatuses: [500],
  seed: 'platform',
};

/**
 * The server errors the seed documents (its status tables list 400, 401, 403, 404, 429 and 500):
 * a fault the platform never answers would test clients against a platform that does not exist.
 */
export const DOCUMENTED_FAULTS: readonly number[] = [500];

export type HostilityPatch = Partial<Omit<Hostility, 'rateLimitPerMinute' | 'latencyMs'>> & {
  rateLimitPerMinute?: Partial<Record<Family, number>> | number;
  latencyMs?: Partial<Hostility['latencyMs']>;
};

/** Merges a partial override; a bare number for `rateLimitPerMinute` sets every family. */
export function applyHostility(base: Hostility, patch: HostilityPatch): Hostility {
  const undocumented = (patch.faultStatuses ?? []).filter((status) => !DOCUMENTED_FAULTS.includes(status));
  if (undocumented.length > 0)
    throw new ApiError(
      'bad-request',
      `faultStatuses: ${undocumented.join(', ')} not documented by the platform; it answers server errors as ${DOCUMENTED_FAULTS.join(', ')}`,
    );
  const rate = patch.rateLimitPerMinute;
  const rateLimitPerMinute =
    typeof rate === 'number' ? { conversations: rate, data: rate, message: rate, auth: rate } : { ...base.rateLimitPerMinute, ...(rate ?? {}) };
  return {
    ...base,
    ...patch,
    rateLimitPerMinute,
    latencyMs: { ...base.latencyMs, ...(patch.latencyMs ?? {}) },
    faultStatuses: patch.faultStatuses ?? base.faultStatuses,
  };
}

/** A fixed one-minute window per key on the simulator clock; rejected requests count too. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly now: () => number) {}

  /** Undefined when admitted, else the seconds to wait. */
  take(key: string, perMinute: number): number | undefined {
    if (perMinute <= 0) return undefined;
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return w.count > perMinute ? Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000)) : undefined;
  }

  reset(): void {
    this.windows.clear();
  }
}

/** Seeded draws (SHA-256 of seed and a counter), so a run's faults are reproducible. */
export class FaultInjector {
  private count = 0;

  constructor(private readonly settings: () => Hostility) {}

  private draw(): number {
    const digest = crypto.createHash('sha256').update(`${this.settings().seed}:${this.count++}`).digest();
    return digest.readUInt32BE(0) / 2 ** 32;
  }

  fault(): number | undefined {
    const s = this.settings();
    if (s.faultRate <= 0 || s.faultStatuses.length === 0) return undefined;
    if (this.draw() >= s.faultRate) return undefined;
    return s.faultStatuses[Math.floor(this.draw() * s.faultStatuses.length)];
  }

  latency(): number {
    const { min, max } = this.settings().latencyMs;
    return max <= 0 ? 0 : Math.round(min + this.draw() * Math.max(0, max - min));
  }
}
