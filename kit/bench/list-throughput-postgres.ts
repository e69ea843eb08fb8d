import os from 'node:os';
import type { BenchContext } from './bench-context';
import { describe, listCrawlStarts, listLoad, type ListThroughputOptions } from './list-throughput';
import { loadNote } from './load-note';
import { benchPostgresConnections } from './start-bench-gateway';
import { measureLoad, type LoadRun } from './measure-load';
import { measurement, type BenchmarkResult } from './report';

const DEFAULTS: ListThroughputOptions = { concurrency: 20, warmupMs: 3000, durationMs: 5000, rounds: 3 };
/** Postgres list pages at least this share of SQLite's rate on the same machine (issue 18). */
const GOAL = 0.7;

/**
 * List throughput on Postgres beside SQLite: the same 100,000-file corpus staged in both (the
 * shared SQLite gateway and one over a schema of its own on the Postgres server), the same list
 * load as `list-throughput` (20 keep-alive clients, first pages and nextLink crawls from starts
 * spread over the collection in both orders), rounds interleaved; the best round of each counts.
 */
export async function listThroughputPostgres(
  sqlite: BenchContext,
  postgres: BenchContext,
  options: Partial<ListThroughputOptions> = {},
): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  const [lite, pg] = [await sqlite.stagedGateway(), await postgres.stagedGateway()];
  const [liteStarts, pgStarts] = [await listCrawlStarts(sqlite), await listCrawlStarts(postgres)];
  const notes: string[] = [
    `the same ${pg.staged.count.toLocaleString('en-US')} files in each: staged in ${(lite.staged.ms / 1000).toFixed(1)} s on SQLite, ${(pg.staged.ms / 1000).toFixed(1)} s on Postgres (its own schema; a pool of ${benchPostgresConnections()} connections, twice this host's cores)`,
    `${o.concurrency} keep-alive clients in a worker thread, ${o.warmupMs} ms warm-up + ${o.durationMs} ms measured, ${o.rounds} interleaved rounds each, best round counts; 25 % first pages, else 5-page crawls`,
  ];
  let best: { sqlite?: LoadRun; postgres?: LoadRun } = {};
  for (let round = 0; round < o.rounds; round += 1) {
    const p = await measureLoad(listLoad(pg.gateway.url, pgStarts, o, round + 1));
    const s = await measureLoad(listLoad(lite.gateway.url, liteStarts, o, round + 1));
    if (!best.postgres || p.rps > best.postgres.rps) best = { ...best, postgres: p };
    if (!best.sqlite || s.rps > best.sqlite.rps) best = { ...best, sqlite: s };
  }
  if (!best.sqlite || !best.postgres) throw new Error('no rounds ran');
  notes.push(
    `${describe('Postgres', best.postgres, o.durationMs)}, ${best.postgres.serverCpuUs.toFixed(0)} µs of server-thread CPU a page`,
    `${describe('SQLite', best.sqlite, o.durationMs)}, ${best.sqlite.serverCpuUs.toFixed(0)} µs of server-thread CPU a page`,
    loadNote(load0),
  );
  if (best.postgres.errors > 0) notes.push(`WARNING: the Postgres gateway answered ${best.postgres.errors} requests with an error in its best round`);
  return {
    name: 'list-throughput-postgres',
    durationMs: performance.now() - started,
    measurements: [
      measurement({
        benchmark: 'list-throughput-postgres',
        metric: `Postgres: GET /v1/files $top=100, ${o.concurrency} clients (baseline: SQLite)`,
        unit: 'req/s',
        value: best.postgres.rps,
        baseline: best.sqlite.rps,
        goal: { on: 'ratio', op: '>=', target: GOAL },
      }),
    ],
    notes,
  };
}
