import http from 'node:http';
import type { BenchContext } from './bench-context';
import { httpGet } from './http-get';
import type { HttpLoadOptions } from './http-load';
import { measureLoad, type LoadRun } from './measure-load';
import { measurement, type BenchmarkResult } from './report';
import { startBareServer } from './start-bare-server';
import { AUTH_HEADERS } from './start-bench-gateway';

export interface ListThroughputOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Alternating gateway/baseline rounds; the best round of each counts (noise only ever slows). */
  rounds: number;
}

const DEFAULTS: ListThroughputOptions = { concurrency: 20, warmupMs: 3000, durationMs: 5000, rounds: 2 };
const TOP = 100;
const BY_MODIFIED = 'last_modified_datetime';
/** A small constant answer behind the whole middleware stack: the floor under every request. */
const METADATA_PATH = '/v1/files/permissions/metadata';

/** Crawl starts spread over the whole collection in both orderings: the skiptokens of a crawl at `$top=1000`. */
export async function listCrawlStarts(ctx: BenchContext): Promise<string[]> {
  const [byId, byModified] = await Promise.all([ctx.skipTokens(''), ctx.skipTokens(BY_MODIFIED)]);
  return [...byId, ...byModified].map((token) => `/v1/files?$top=${TOP}&$skiptoken=${token}`);
}

/**
 * The list load: first pages in both orderings (a quarter of the sequences), else 5-page nextLink
 * crawls from `crawlStarts`, with the bench gateway's API key unless `headers` says otherwise.
 */
export function listLoad(
  baseUrl: string,
  crawlStarts: string[],
  o: Pick<ListThroughputOptions, 'concurrency' | 'warmupMs' | 'durationMs'>,
  seed: number,
  headers: Record<string, string> = AUTH_HEADERS as Record<string, string>,
): HttpLoadOptions {
  return {
    baseUrl,
    headers,
    firstPaths: [`/v1/files?$top=${TOP}`, `/v1/files?$top=${TOP}&$orderby=${BY_MODIFIED}`],
    crawlStarts,
    firstPageShare: 0.25,
    crawlPages: 5,
    concurrency: o.concurrency,
    warmupMs: o.warmupMs,
    durationMs: o.durationMs,
    seed,
  };
}

export function describe(label: string, r: LoadRun, durationMs: number): string {
  const p = r.latencyMs;
  const busyUs = (r.serverElu * durationMs * 1000) / r.requests;
  return (
    `${label}: ${r.requests} requests, ${r.errors} errors, ${r.rps.toFixed(0)} rps, latency p50 ${p.p50.toFixed(1)} / p90 ${p.p90.toFixed(1)} / p99 ${p.p99.toFixed(1)} ms, ` +
    `${(r.bytes / r.requests / 1024).toFixed(1)} KiB a page, server thread ${(r.serverElu * 100).toFixed(0)} % busy = ${busyUs.toFixed(0)} µs a request`
  );
}

/**
 * Pages per second of `/v1/files?$top=100` under 20 keep-alive clients (first pages and
 * nextLink crawls from starts spread over the whole collection, in both orderings), divided by
 * what a bare node:http server answering the same bytes manages under the same client loop.
 */
export async function listThroughput(ctx: BenchContext, options: Partial<ListThroughputOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const { gateway, staged } = await ctx.stagedGateway();

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const first = await httpGet(`${gateway.url}/v1/files?$top=${TOP}`, agent, AUTH_HEADERS);
  agent.destroy();
  if (first.status !== 200) throw new Error(`first page answered ${first.status}`);
  const body = first.body;
  const baseline = await startBareServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });

  const crawlStarts = await listCrawlStarts(ctx);
  const load = (baseUrl: string, seed: number): Promise<LoadRun> => measureLoad(listLoad(baseUrl, crawlStarts, o, seed));

  const notes: string[] = [
    `${staged.count} files staged in ${(staged.ms / 1000).toFixed(1)} s (${staged.html} HTML, ${staged.binary} binary, ${staged.deleted} tombstones)`,
    `${o.concurrency} keep-alive clients in a worker thread, ${o.warmupMs} ms warm-up + ${o.durationMs} ms measured, ${o.rounds} rounds each, best round counts; 25 % first pages, else 5-page crawls from ${crawlStarts.length} starts`,
  ];
  let bestGateway: LoadRun | undefined;
  let bestBaseline: LoadRun | undefined;
  try {
    for (let round = 0; round < o.rounds; round += 1) {
      const g = await load(gateway.url, round + 1);
      const b = await load(baseline.url, round + 1);
      notes.push(describe(`round ${round + 1} gateway`, g, o.durationMs), describe(`round ${round + 1} baseline`, b, o.durationMs));
      if (!bestGateway || g.rps > bestGateway.rps) bestGateway = g;
      if (!bestBaseline || b.rps > bestBaseline.rps) bestBaseline = b;
    }
  } finally {
    await baseline.close();
  }
  if (!bestGateway || !bestBaseline) throw new Error('no rounds ran');
  const busyUs = (r: LoadRun): number => (r.serverElu * o.durationMs * 1000) / r.requests;
  // What every request pays before any database work: the same server, the same clients, an
  // endpoint that answers a small constant body (routing, validation, auth, logging, metrics, HTTP).
  const floor = await measureLoad({
    baseUrl: gateway.url,
    headers: AUTH_HEADERS as Record<string, string>,
    firstPaths: [METADATA_PATH],
    crawlStarts: [],
    firstPageShare: 1,
    crawlPages: 1,
    concurrency: o.concurrency,
    warmupMs: o.warmupMs,
    durationMs: o.durationMs,
    seed: 1,
  });
  notes.push(
    `${describe(`stack floor (${METADATA_PATH}, no database)`, floor, o.durationMs)}: ` +
      `${busyUs(floor).toFixed(0)} of the ${busyUs(bestGateway).toFixed(0)} µs a page costs go to what every request pays, before any SQL or page-sized write`,
  );
  if (bestBaseline.serverElu < 0.9) {
    notes.push(
      `the baseline server thread was only ${(bestBaseline.serverElu * 100).toFixed(0)} % busy: the client loop, not the server, caps the baseline, so the ratio flatters the gateway; ` +
        `by server-thread time a request costs ${busyUs(bestGateway).toFixed(0)} µs on the gateway vs ${busyUs(bestBaseline).toFixed(0)} µs on the baseline (ratio ${(busyUs(bestBaseline) / busyUs(bestGateway)).toFixed(2)})`,
    );
  }
  if (floor.errors > 0) notes.push(`WARNING: ${METADATA_PATH} answered ${floor.errors} requests with an error`);
  if (bestGateway.errors > 0) notes.push(`WARNING: the gateway answered ${bestGateway.errors} requests with an error in its best round`);

  return {
    name: 'list-throughput',
    durationMs: performance.now() - started,
    measurements: [
      measurement({
        benchmark: 'list-throughput',
        metric: `GET /v1/files $top=${TOP}, ${o.concurrency} clients`,
        unit: 'req/s',
        value: bestGateway.rps,
        baseline: bestBaseline.rps,
        goal: { on: 'ratio', op: '>=', target: 0.5 },
      }),
    ],
    notes,
  };
}
