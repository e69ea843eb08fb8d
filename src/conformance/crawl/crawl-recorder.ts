import type { ContractViolation, CrawlStats, ExchangeKind, RateLimitSample, TransportError } from './crawl-record';
import { summarizeLatency } from './latency-summary';

const MAX_VIOLATIONS = 2000;
const MAX_RATE_LIMIT_SAMPLES = 5000;
const MAX_TRANSPORT_ERRORS = 500;

/**
 * Records every exchange as numbers (latency, bytes, status) plus the few things checks need
 * (contract violations, rate-limit headers, transport errors), each capped, so a crawl of
 * 100,000 files keeps a small, bounded footprint.
 */
export class CrawlRecorder {
  private readonly latencies = new Map<ExchangeKind, number[]>();
  private readonly statusCounts: Record<string, number> = {};
  private requests = 0;
  private bytes = 0;
  private firstStart = Number.POSITIVE_INFINITY;
  private lastEnd = 0;
  private inFlight = 0;
  private peakInFlight = 0;
  retries = 0;
  readonly violations: ContractViolation[] = [];
  violationsDropped = 0;
  readonly rateLimits: RateLimitSample[] = [];
  readonly missingRetryAfter: Array<{ url: string; status: number }> = [];
  readonly transportErrors: TransportError[] = [];

  started(at: number): void {
    this.firstStart = Math.min(this.firstStart, at);
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
  }

  finished(e: { kind: ExchangeKind; status: number; bytes: number; startedAt: number; endedAt: number }): void {
    this.inFlight--;
    this.requests++;
    this.bytes += e.bytes;
    this.lastEnd = Math.max(this.lastEnd, e.endedAt);
    const key = e.status === 0 ? 'error' : String(e.status);
    this.statusCounts[key] = (this.statusCounts[key] ?? 0) + 1;
    let list = this.latencies.get(e.kind);
    if (!list) this.latencies.set(e.kind, (list = []));
    list.push(e.endedAt - e.startedAt);
  }

  violation(v: ContractViolation): void {
    if (this.violations.length < MAX_VIOLATIONS) this.violations.push(v);
    else this.violationsDropped++;
  }

  rateLimit(sample: RateLimitSample): void {
    if (this.rateLimits.length < MAX_RATE_LIMIT_SAMPLES) this.rateLimits.push(sample);
  }

  transportError(e: TransportError): void {
    if (this.transportErrors.length < MAX_TRANSPORT_ERRORS) this.transportErrors.push(e);
  }

  stats(pacing: { waitedMs: number; slowdowns: number }): CrawlStats {
    const all: number[] = [];
    const latencyByKind: CrawlStats['latencyByKind'] = {};
    const requestsByKind: CrawlStats['requestsByKind'] = {};
    for (const [kind, list] of this.latencies) {
      for (const v of list) all.push(v);
      latencyByKind[kind] = summarizeLatency(list);
      requestsByKind[kind] = list.length;
    }
    const durationMs = this.requests ? Math.max(1, this.lastEnd - this.firstStart) : 0;
    return {
      requests: this.requests,
      bytes: this.bytes,
      durationMs: Math.round(durationMs),
      requestsPerSecond: durationMs ? Math.round((this.requests / durationMs) * 1000 * 10) / 10 : 0,
      bytesPerSecond: durationMs ? Math.round((this.bytes / durationMs) * 1000) : 0,
      latencyMs: summarizeLatency(all),
      latencyByKind,
      requestsByKind,
      statusCounts: { ...this.statusCounts },
      retries: this.retries,
      pacedMs: Math.round(pacing.waitedMs),
      slowdowns: pacing.slowdowns,
      maxInFlight: this.peakInFlight,
    };
  }
}
