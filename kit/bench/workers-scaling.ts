import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { BenchContext } from './bench-context';
import { runFullCrawlWorker } from './full-crawl-jobs';
import { getJson } from './http-get';
import { httpLoad, type HttpLoadOptions, type HttpLoadResult } from './http-load';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult } from './report';
import { stageAccess } from './stage-access';
import { AUTH_HEADERS, BENCH_API_KEY, benchPaths } from './start-bench-gateway';
import { startServeProcess, type ServeProcess } from './start-serve-process';

const TOP = 100;
const CLIENTS = 20;
const ROUNDS = 2;
const WARMUP_MS = 3000;
const DURATION_MS = 5000;
/**
 * Two workers on two cores that the load generator (and the machine's other work) also use: the
 * gain is what a second event loop buys when the first is the bottleneck, well short of 2×.
 */
const GOAL_RATIO = 1.3;

interface Runs {
  list?: HttpLoadResult;
  get?: HttpLoadResult;
}

/** `$skiptoken`s every 1,000 rows of one `$top=1000` crawl of `base`: starts spread over the collection. */
async function crawlStarts(base: string): Promise<string[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const starts: string[] = [];
  let url: string | undefined = `${base}/v1/files?$top=1000`;
  try {
    while (url) {
      const body: { '@odata.nextLink'?: string } = await getJson(url, agent, AUTH_HEADERS);
      url = body['@odata.nextLink'];
      if (url) starts.push(`/v1/files?$top=${TOP}&$skiptoken=${new URL(url).searchParams.get('$skiptoken') ?? ''}`);
    }
  } finally {
    agent.destroy();
  }
  return starts;
}

const best = (a: HttpLoadResult | undefined, b: HttpLoadResult): HttpLoadResult => (a && a.rps >= b.rps ? a : b);
const line = (label: string, r: HttpLoadResult): string =>
  `${label}: ${r.requests} requests, ${r.errors} errors, ${r.rps.toFixed(0)} req/s, latency p50 ${r.latencyMs.p50.toFixed(1)} / p90 ${r.latencyMs.p90.toFixed(1)} / p99 ${r.latencyMs.p99.toFixed(1)} ms`;

/**
 * `serve` with WEB_CONCURRENCY=1 and =2, as real processes over the shared 100,000-file corpus
 * (SQLite): list pages (first pages and 5-page crawls from starts spread over the collection) and
 * single-file GETs (`/v1/files/{id}` of 2,000 files) under 20 keep-alive clients, alternating
 * between the two gateways round by round (the best round of each counts), then the platform's
 * full crawl (conformance crawler, 20 in flight) of each. Figures: 2 workers against 1.
 */
export async function workersScaling(ctx: BenchContext): Promise<BenchmarkResult> {
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  const { gateway, staged } = await ctx.stagedGateway();
  await stageAccess(gateway);
  const { sqlitePath, blobDir } = benchPaths(path.dirname(gateway.blobDir));
  const env = { SQLITE_PATH: sqlitePath, BLOB_DIR: blobDir, GATEWAY_API_KEY: BENCH_API_KEY, RATE_LIMIT_REQUESTS: '0' };
  const servers: Array<[number, ServeProcess]> = [];
  const runs = new Map<number, Runs>([
    [1, {}],
    [2, {}],
  ]);
  const notes: string[] = [
    `${staged.count} files; ${CLIENTS} keep-alive clients in a worker thread of the bench process, ${WARMUP_MS} ms warm-up + ${DURATION_MS} ms measured, ${ROUNDS} rounds each, alternating, best counts`,
  ];
  const crawls = new Map<number, number>();
  try {
    for (const workers of [1, 2]) servers.push([workers, await startServeProcess({ ...env, WEB_CONCURRENCY: String(workers) })]);
    const starts = await crawlStarts((servers[0] as [number, ServeProcess])[1].url);
    const ids = (await gateway.db('files').where({ status: 'active' }).orderByRaw('random()').limit(2000).pluck('id')) as string[];
    const base = { headers: AUTH_HEADERS as Record<string, string>, concurrency: CLIENTS, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [workers, server] of servers) {
        const r = runs.get(workers) as Runs;
        const list: HttpLoadOptions = {
          ...base,
          baseUrl: server.url,
          firstPaths: [`/v1/files?$top=${TOP}`],
          crawlStarts: starts,
          firstPageShare: 0.25,
          crawlPages: 5,
          seed: round + 1,
        };
        r.list = best(r.list, await httpLoad(list));
        const get: HttpLoadOptions = {
          ...base,
          baseUrl: server.url,
          firstPaths: ids.map((id) => `/v1/files/${encodeURIComponent(id)}`),
          crawlStarts: [],
          firstPageShare: 1,
          crawlPages: 1,
          seed: round + 1,
        };
        r.get = best(r.get, await httpLoad(get));
      }
    }
    for (const [workers, server] of servers) {
      const crawl = await runFullCrawlWorker({ mode: 'crawl', baseUrl: server.url, key: BENCH_API_KEY, concurrency: CLIENTS });
      const rps = (crawl.stats.requests * 1000) / crawl.stats.durationMs;
      crawls.set(workers, rps);
      notes.push(
        `full crawl, ${workers} worker(s): ${crawl.stats.requests} requests in ${(crawl.stats.durationMs / 1000).toFixed(1)} s = ${rps.toFixed(0)} req/s, p50 ${crawl.stats.latencyMs.p50} / p99 ${crawl.stats.latencyMs.p99} ms`,
      );
    }
  } finally {
    for (const [, server] of servers) await server.stop();
  }
  for (const [workers, r] of runs) {
    if (r.list) notes.push(line(`list pages, ${workers} worker(s)`, r.list));
    if (r.get) notes.push(line(`single-file GET, ${workers} worker(s)`, r.get));
  }
  notes.push(loadNote(load0));
  const one = runs.get(1) as Runs;
  const two = runs.get(2) as Runs;
  const goal = { on: 'ratio' as const, op: '>=' as const, target: GOAL_RATIO };
  return {
    name: 'workers',
    durationMs: performance.now() - started,
    measurements: [
      measurement({
        benchmark: 'workers',
        metric: `list pages $top=${TOP}, 2 workers vs 1`,
        unit: 'req/s',
        value: two.list?.rps ?? 0,
        baseline: one.list?.rps ?? 0,
        goal,
      }),
      measurement({
        benchmark: 'workers',
        metric: 'GET /v1/files/{id}, 2 workers vs 1',
        unit: 'req/s',
        value: two.get?.rps ?? 0,
        baseline: one.get?.rps ?? 0,
        goal,
      }),
      measurement({ benchmark: 'workers', metric: 'full crawl, 2 workers vs 1', unit: 'req/s', value: crawls.get(2) ?? 0, baseline: crawls.get(1) ?? 0, goal }),
    ],
    notes,
  };
}
