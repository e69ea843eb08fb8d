import http from 'node:http';
import os from 'node:os';
import { explainPages, interleavedMedians } from './deep-page';
import { getJson } from './http-get';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult, type Measurement } from './report';
import { stageFiles } from './stage-files';
import { AUTH_HEADERS, benchPostgresUrl, startBenchGateway } from './start-bench-gateway';

export interface DeepPageMillionOptions {
  files: number;
  requests: number;
  warmup: number;
  depth: number;
}

const DEFAULTS: DeepPageMillionOptions = { files: 1_000_000, requests: 150, warmup: 20, depth: 0.9 };
const TOP = 100;
const ORDERS = ['', 'last_modified_datetime'] as const;
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The `$skiptoken` of the page that starts at row `row` in `orderby`: a first request with
 * `$skip` (honoured on a first request, an OFFSET scan paid once here) ending just before it,
 * whose nextLink carries the keyset position. A crawl of a million rows would find the same token.
 */
async function tokenAt(base: string, agent: http.Agent, orderby: string, row: number): Promise<string> {
  const url = `${base}/v1/files?$top=${TOP}&$skip=${row - TOP}${orderby ? `&$orderby=${orderby}` : ''}`;
  const body = await getJson<{ '@odata.nextLink'?: string }>(url, agent, { ...AUTH_HEADERS });
  const token = body['@odata.nextLink'] && new URL(body['@odata.nextLink']).searchParams.get('$skiptoken');
  if (!token) throw new Error(`no nextLink after row ${row} in order '${orderby || 'id'}'`);
  return token;
}

/** One database: stage, then first page against the page at `depth`, both orders. */
async function onDatabase(
  database: 'SQLite' | 'Postgres',
  postgresUrl: string | undefined,
  o: DeepPageMillionOptions,
  notes: string[],
): Promise<Measurement[]> {
  const gateway = await startBenchGateway(postgresUrl ? { postgresUrl } : {});
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const measurements: Measurement[] = [];
  try {
    const staged = await stageFiles(gateway.db, o.files);
    notes.push(
      `${database}: ${count(staged.count)} files staged in ${(staged.ms / 1000).toFixed(1)} s = ${Math.round(staged.count / (staged.ms / 1000)).toLocaleString('en-US')} rows/s ` +
        `(StagingWriter.loadFiles: batches of 5,000 in one transaction, secondary indexes built at the end; node CPU ${(staged.cpuMs / 1000).toFixed(1)} s; ${count(staged.deleted)} tombstones)`,
    );
    for (const orderby of ORDERS) {
      const label = `${orderby || 'id (default)'}, ${database}`;
      const firstUrl = `${gateway.url}/v1/files?$top=${TOP}${orderby ? `&$orderby=${orderby}` : ''}`;
      const deepUrl = `${gateway.url}/v1/files?$top=${TOP}&$skiptoken=${await tokenAt(gateway.url, agent, orderby, Math.round(o.files * o.depth))}`;
      const medians = await interleavedMedians(agent, firstUrl, deepUrl, o);
      measurements.push(
        measurement({
          benchmark: 'deep-page-million',
          metric: `${database}: page at ${o.depth * 100} % of ${count(o.files)} vs first, order ${orderby || 'id'}`,
          unit: 'ms',
          value: medians.deep,
          baseline: medians.first,
          goal: { on: 'ratio', op: '<=', target: 1.2 },
        }),
      );
      // The plans explain a miss; a failure to get them must not lose the figures.
      notes.push(...(await explainPages(gateway.db, agent, firstUrl, deepUrl, label).catch((error: unknown) => [`order ${label}: no plan: ${String(error)}`])));
    }
  } finally {
    agent.destroy();
    await gateway.close();
  }
  return measurements;
}

/**
 * Keyset paging at a million files: the median latency of the page at 90 % depth against the
 * first page, one request at a time, interleaved, in both orders, on SQLite and (when
 * `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` is set; a schema of its own, dropped after) on
 * Postgres. Staging the million rows is timed and reported.
 */
export async function deepPageMillion(options: Partial<DeepPageMillionOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  const notes: string[] = [`${o.requests} timed requests of each page after ${o.warmup} warm-up each, interleaved, one at a time; median latency; $top=${TOP}`];
  const measurements = await onDatabase('SQLite', undefined, o, notes);
  const pg = benchPostgresUrl();
  if (pg) measurements.push(...(await onDatabase('Postgres', pg, o, notes)));
  else notes.push('Postgres rows SKIPPED: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a Postgres server to measure them');
  notes.push(loadNote(load0));
  return { name: 'deep-page-million', durationMs: performance.now() - started, measurements, notes };
}
