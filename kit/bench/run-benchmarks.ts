/**
 * `npm run bench [-- --only <name>[,<name>]]`: runs each benchmark in turn, prints a table
 * (every figure beside its in-run baseline, the ratio, the goal and pass/MISS) and writes
 * kit/bench/results/latest.json. A missed goal or a crashed benchmark is reported, never fatal.
 * The Postgres rows run against BENCH_DATABASE_URL (else TEST_DATABASE_URL), each in a schema of
 * its own that is dropped after; without either they are skipped with a note. The sample
 * comparison needs gunicorn and Flask (Debian: python3-flask, gunicorn), and is skipped without.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { authOverhead } from './auth-overhead';
import { BenchContext } from './bench-context';
import { commandStart } from './command-start';
import { consolePages } from './console-pages';
import { deepPage } from './deep-page';
import { deepPageMillion } from './deep-page-million';
import { downloadRss } from './download-rss';
import { forceGc } from './force-gc';
import { fullCrawl } from './full-crawl';
import { gatewayMemory } from './gateway-memory';
import { listThroughput } from './list-throughput';
import { listThroughputPostgres } from './list-throughput-postgres';
import { policyCompile } from './policy-compile';
import { formatTable, writeJson, type BenchmarkResult } from './report';
import { requestFloor } from './request-floor';
import { s3Downloads } from './s3-downloads';
import { sampleComparison } from './sample-comparison';
import { benchPostgresUrl } from './start-bench-gateway';
import { sqlSync } from './sql-sync';
import { syncMemory } from './sync-memory';
import { syncThroughput } from './sync-throughput';
import { tokenFlood } from './token-flood';
import { usageBench } from './usage';
import { wmManifest } from './wm-manifest';
import { wmSync } from './wm-sync';
import { workersScaling } from './workers-scaling';

const FILE_COUNT = 100_000;

/** `pg`: the same corpus on Postgres, when BENCH_DATABASE_URL or TEST_DATABASE_URL names a server. */
type Benchmark = (ctx: BenchContext, pg: BenchContext | undefined) => Promise<BenchmarkResult>;

/** The result of a Postgres benchmark where no Postgres server is configured: a visible note, no figures. */
function noPostgres(name: string): Promise<BenchmarkResult> {
  return Promise.resolve({
    name,
    durationMs: 0,
    measurements: [],
    notes: ['SKIPPED: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a Postgres server to measure the Postgres rows'],
  });
}

/** In run order. Add new benchmarks here. */
const BENCHMARKS: ReadonlyArray<readonly [string, Benchmark]> = [
  ['command-start', () => commandStart()],
  ['list-throughput', (ctx) => listThroughput(ctx)],
  ['list-throughput-postgres', (ctx, pg) => (pg ? listThroughputPostgres(ctx, pg) : noPostgres('list-throughput-postgres'))],
  ['deep-page', (ctx) => deepPage(ctx)],
  ['request-floor', (ctx) => requestFloor(ctx)],
  ['deep-page-million', () => deepPageMillion()],
  ['sample-comparison', () => sampleComparison()],
  ['gateway-memory', (ctx) => gatewayMemory(ctx)],
  ['download-rss', () => downloadRss()],
  ['s3-downloads', () => s3Downloads()],
  ['auth-overhead', (ctx) => authOverhead(ctx)],
  ['token-flood', () => tokenFlood()],
  ['wm-sync', () => wmSync()],
  ['wm-manifest', () => wmManifest()],
  ['policy-compile', () => policyCompile()],
  ['usage', () => usageBench()],
  ['sql-sync', () => sqlSync()],
  // The operator console's pages (issue 32), each over a staging of its own: 100,000 files and 10,000 users.
  ['console-pages', () => consolePages()],
  ['console-pages-postgres', () => (benchPostgresUrl() ? consolePages(benchPostgresUrl()) : noPostgres('console-pages-postgres'))],
  // After the benchmarks that use the shared gateway: it adds users, groups, access lists and
  // blobs to it (stage-access.ts).
  ['full-crawl', (ctx) => fullCrawl(ctx)],
  ['full-crawl-postgres', (_ctx, pg) => (pg ? fullCrawl(pg) : noPostgres('full-crawl-postgres'))],
  // `serve` processes with 1 and 2 workers over the same corpus (access staged as for full-crawl).
  ['workers', (ctx) => workersScaling(ctx)],
  // Last, so the HTTP benchmarks run in a process its big sync heaps never grew. It creates
  // thousands of files and waits, round by round, for the disk to be quiet again after the
  // deletions before it (see sync-throughput.ts).
  ['sync-throughput', () => syncThroughput()],
  // A full sync's own memory at 100,000 and 1,000,000 files (SYNC_MEMORY_FILES=20000,100000 for a
  // quicker run), each in a child process; the sources are generated once and cached.
  ['sync-memory', () => syncMemory()],
];

/** The commit measured, and whether the measured code had uncommitted changes. */
function currentCommit(): string {
  const git = (args: string[]): string => execFileSync('git', args, { cwd: path.join(__dirname, '../..'), encoding: 'utf8' }).trim();
  try {
    return `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--', 'src', 'migrations', 'kit/bench']) ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

function selected(argv: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--only') names.push(...(argv[i + 1] ?? '').split(','));
    else if (arg.startsWith('--only=')) names.push(...arg.slice('--only='.length).split(','));
    if (arg === '--only') i += 1;
  }
  const all = BENCHMARKS.map(([name]) => name);
  const wanted = names.map((n) => n.trim()).filter((n) => n.length > 0);
  const unknown = wanted.filter((n) => !all.includes(n));
  if (unknown.length) {
    console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${all.join(', ')}`);
    process.exit(2);
  }
  return wanted.length ? wanted : all;
}

async function main(): Promise<void> {
  const names = selected(process.argv.slice(2));
  const started = performance.now();
  const ctx = new BenchContext(FILE_COUNT);
  const pgUrl = benchPostgresUrl();
  const pg = pgUrl ? new BenchContext(FILE_COUNT, pgUrl) : undefined;
  const results: BenchmarkResult[] = [];
  try {
    for (const [name, run] of BENCHMARKS) {
      if (!names.includes(name)) continue;
      console.log(`running ${name} ...`);
      const t0 = performance.now();
      try {
        results.push(await run(ctx, pg));
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        results.push({ name, durationMs: performance.now() - t0, measurements: [], notes: [], error: message });
      }
    }
  } finally {
    await ctx.close().catch((error: unknown) => console.error('closing the shared gateway failed:', error));
    await pg?.close().catch((error: unknown) => console.error('closing the shared Postgres gateway failed:', error));
  }
  const totalMs = performance.now() - started;
  console.log(`\n${formatTable(results)}\n\ntotal ${(totalMs / 1000).toFixed(1)} s`);
  const file = path.join(__dirname, 'results', 'latest.json');
  writeJson(file, results, {
    finishedAt: new Date().toISOString(),
    commit: currentCommit(),
    totalMs,
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.cpus().length,
    gcAvailable: forceGc(),
  });
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
