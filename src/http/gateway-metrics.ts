import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../staging/create-db';
import { CONTENT_UNAVAILABLE_REASONS, type ContentUnavailableReason } from './content-unavailable-error';

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

  constructor(db: Db) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'content_gateway_' });
    this.requests = new Counter({ name: 'content_gateway_http_requests_total', help: 'HTTP requests by route and status.', labelNames: ['route', 'method', 'status'], registers });
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
    new Gauge({
      name: 'content_gateway_staged_rows',
      aggregator: 'first',
      help: 'Rows in staging, by table and status.',
      labelNames: ['table', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const r of (await db('files').select('status').count({ n: '*' }).groupBy('status')) as Array<{ status: string; n: number | string }>) this.set({ table: 'files', status: r.status }, Number(r.n));
        // `users`: the sources' accounts; `people`: the users served (one per person).
        for (const table of ['users', 'people']) {
          for (const r of (await db(table).select('state').count({ n: '*' }).groupBy('state')) as Array<{ state: string; n: number | string }>) this.set({ table, status: r.state }, Number(r.n));
        }
        for (const table of ['groups', 'group_members', 'file_permissions']) {
          const row = (await db(table).count({ n: '*' }).first()) as { n: number | string };
          this.set({ table, status: 'all' }, Number(row.n));
        }
      },
    });
    const latestRuns = async () =>
      (await db('sync_runs').whereIn('id', db('sync_runs').max('id').groupBy('source')).select('source', 'status', 'started_at', 'counts')) as Array<{ source: string; status: string; started_at: string; counts: string | null }>;
    new Gauge({
      name: 'content_gateway_sync_runs',
      aggregator: 'first',
      help: 'Sync runs recorded, by source, mode and status.',
      labelNames: ['source', 'mode', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const r of (await db('sync_runs').select('source', 'mode', 'status').count({ n: '*' }).groupBy('source', 'mode', 'status')) as Array<{ source: string; mode: string; status: string; n: number | string }>) {
          this.set({ source: r.source, mode: r.mode, status: r.status }, Number(r.n));
        }
      },
    });
    new Gauge({
      name: 'content_gateway_sync_last_run_items',
      aggregator: 'first',
      help: 'Items of the latest sync run of each source, by outcome.',
      labelNames: ['source', 'outcome'],
      registers,
      async collect() {
        this.reset();
        for (const r of await latestRuns()) {
          for (const [outcome, n] of Object.entries(r.counts ? (JSON.parse(r.counts) as Record<string, number>) : {})) this.set({ source: r.source, outcome }, n);
        }
      },
    });
    new Counter({
      name: 'content_gateway_sync_unannounced_changes_total',
      aggregator: 'first',
      help: 'Changes sync runs found by polling that no change event announced (access reconciliation of a lossy change feed: access lists rewritten, files tombstoned or read again), by source, over every recorded run.',
      labelNames: ['source'],
      registers,
      async collect() {
        this.reset();
        for (const r of (await db('sync_runs').select('source').sum({ n: 'unannounced' }).groupBy('source')) as Array<{ source: string; n: number | string | null }>) this.inc({ source: r.source }, Number(r.n ?? 0));
      },
    });
    new Gauge({
      name: 'content_gateway_sync_last_run_timestamp_seconds',
      aggregator: 'first',
      help: 'When the latest sync run of each source started, by its status.',
      labelNames: ['source', 'status'],
      registers,
      async collect() {
        this.reset();
        for (const r of await latestRuns()) this.set({ source: r.source, status: r.status }, Date.parse(r.started_at) / 1000);
      },
    });
  }

  /** Counts a download whose content the blob store could not give. */
  contentUnavailable(reason: ContentUnavailableReason): void {
    this.unavailable.inc({ reason });
  }

  /** Counts and times every request; the route label comes from `res.locals.route` (set after routing). */
  middleware() {
    const { duration, inFlight, requests } = this;
    return function metricsMiddleware(req: Request, res: Response, next: NextFunction): void {
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
