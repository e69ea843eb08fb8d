import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../staging/database/create-db';
import { CONTENT_UNAVAILABLE_REASONS, type ContentUnavailableReason } from './content-unavailable-error';
import { registerStagingMetrics } from './staging-metrics';
import { registerSyncQueueMetrics } from './sync-queue-metrics';

/**
 * Prometheus metrics of one gateway app (its own registry, so several apps can share a process):
 * requests by route (the contract's operationId, never the raw path, to bound cardinality) and
 * status, latency histograms, in-flight requests, staged rows, and the outcome of each source's
 * latest sync run (read from `sync_runs` at scrape time: syncs run in another process).
 * Figures read from the database are the same in every worker of a cluster: gathered across
 * workers, they count once (`aggregator: 'first'`); the rest add up.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly duration: Histogram<'route'>;
  private readonly unavailable: Counter<'reason'>;
  readonly inFlight: Gauge;

  /** `queueSchema`: where the sync job queue is (Postgres), for its gauges. */
  constructor(db: Db, queueSchema: string) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'content_gateway_' });
    this.requests = new Counter({
      name: 'content_gateway_http_requests_total',
      help: 'HTTP requests by route and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'content_gateway_http_request_duration_seconds',
      help: 'Time to answer a request (to the last byte), by route.',
      labelNames: ['route'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.inFlight = new Gauge({ name: 'content_gateway_http_requests_in_flight', help: 'Requests being answered now.', registers });
    this.unavailable = new Counter({
      name: 'content_gateway_download_content_unavailable_total',
      help: "Downloads whose content the blob store could not give, by reason: missing (no blob), size_mismatch (the blob has not the file's size), read_failed (the read failed; after the first byte the answer was cut). `verify-blobs` lists such files; `--repair` has the next sync fetch them again.",
      labelNames: ['reason'],
      registers,
    });
    // Every reason from the start, at 0: an alert on increase() then sees the first one.
    for (const reason of CONTENT_UNAVAILABLE_REASONS) this.unavailable.inc({ reason }, 0);
    registerStagingMetrics(db, registers);
    registerSyncQueueMetrics(db, queueSchema, registers);
  }

  /** Counts a download whose content the blob store could not give. */
  contentUnavailable(reason: ContentUnavailableReason): void {
    this.unavailable.inc({ reason });
  }

  /** Counts and times every request; the route label comes from `res.locals.route` (set after routing). */
  middleware() {
    const { duration, inFlight, requests } = this;
    return function countRequest(req: Request, res: Response, next: NextFunction): void {
      const end = duration.startTimer();
      inFlight.inc();
      res.once('close', () => {
        const route = typeof res.locals.route === 'string' ? res.locals.route : 'unmatched';
        inFlight.dec();
        end({ route });
        requests.inc({ route, method: req.method, status: String(res.statusCode) });
      });
      next();
    };
  }
}
