import os from 'node:os';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { BenchContext } from './bench-context';
import { runFullCrawlWorker, type CrawlOutcome, type ReplayOutcome } from './full-crawl-jobs';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult } from './report';
import { seededRandom } from './seeded-random';
import { stageAccess } from './stage-access';
import { BENCH_API_KEY } from './start-bench-gateway';

export interface FullCrawlOptions {
  /** Requests in flight, for the crawler and the replay alike (the platform uses 20). */
  concurrency: number;
  /**
   * Share of the crawl's requests the baseline replays (a seeded sample, walk order kept). The
   * gateway answers ~1,500-2,000 requests a second here, so the crawl's ~210,000 requests take
   * two minutes or more and a whole replay as long again; a quarter measures the same rate.
   * 1 replays every request.
   */
  replayShare: number;
}

const DEFAULTS: FullCrawlOptions = { concurrency: 20, replayShare: 0.25 };
const SAMPLE_SEED = 20_261_122;
/**
 * The crawler is the measuring instrument: it may cost at most a fifth of the throughput a client
 * that only moves bytes gets from the same gateway over the same requests. Both wait on the same
 * bottleneck (the gateway's one server thread); what the crawler adds is its work per response
 * (JSON parsing, contract validation, SHA-256 + SHA-1 of every download, bookkeeping), which on a
 * small machine takes CPU from the server, and the walk's order (files are read as their page
 * arrives, groups wait for the files, users for the groups), which can leave slots idle. Below
 * 0.8 the harness, more than the gateway, would set a crawl's pace, and conformance timings would
 * understate what the platform's leaner crawler, on machines of its own, gets from a gateway.
 */
const GOAL_RATIO = 0.8;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Runs `job` in its worker and measures meanwhile the server thread's (this one's) busy time and
 * the process's CPU time (server, client worker and libuv threads; unlike wall-clock figures,
 * other processes on the machine do not inflate it).
 */
async function measured<T>(job: () => Promise<T>): Promise<{ result: T; serverActiveMs: number; cpuMs: number }> {
  const from: EventLoopUtilization = performance.eventLoopUtilization();
  const cpuFrom = process.cpuUsage();
  const result = await job();
  const cpu = process.cpuUsage(cpuFrom);
  return { result, serverActiveMs: performance.eventLoopUtilization(from).active, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** A seeded sample of `share` of the URLs, in their order (every URL when share >= 1). */
function sample(urls: readonly string[], share: number): string[] {
  if (share >= 1) return [...urls];
  const random = seededRandom(SAMPLE_SEED);
  return urls.filter(() => random() < share);
}

function statusText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status} × ${count(n)}`)
    .join(', ');
}

/**
 * The platform's full crawl of the shared 100,000-file gateway (plus users, nested groups with
 * members, an access list per file and a real blob behind every binary, see stage-access.ts) by
 * the conformance crawler at 20 requests in flight, probes and extra crawls off: the files list,
 * each file's metadata, each binary's download, each file's access list, the permission model,
 * the groups and their members, the users. Its requests per second are divided by those of a
 * bare keep-alive client replaying the URLs the crawl requested (rebuilt from its record; a seeded
 * sample of them by default, see `replayShare`), in walk order, at the same concurrency against
 * the same gateway: the ratio is the crawler's own overhead. Both clients run in a worker thread.
 */
export async function fullCrawl(ctx: BenchContext, options: Partial<FullCrawlOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  const { gateway, staged } = await ctx.stagedGateway();
  const access = await stageAccess(gateway);

  const crawlRun = await measured(() => runFullCrawlWorker({ mode: 'crawl', baseUrl: gateway.url, key: BENCH_API_KEY, concurrency: o.concurrency }));
  const crawl: CrawlOutcome = crawlRun.result;
  const s = crawl.stats;
  const replayUrls = sample(crawl.urls, o.replayShare);
  const replayRun = await measured(() => runFullCrawlWorker({ mode: 'replay', urls: replayUrls, key: BENCH_API_KEY, concurrency: o.concurrency }));
  const replay: ReplayOutcome = replayRun.result;
  const whole = replay.requests === crawl.urls.length;

  const crawlRps = (s.requests * 1000) / s.durationMs;
  const notes: string[] = [
    `corpus: ${count(staged.count)} files (${count(staged.html)} HTML, ${count(staged.binary)} binary, ${count(staged.deleted)} tombstones) staged in ${(staged.ms / 1000).toFixed(1)} s; ` +
      `then ${count(access.users)} users (${count(access.inactiveUsers)} inactive), ${count(access.groups)} nested groups with ${count(access.members)} direct members (${access.pagedGroups} groups page), ` +
      `${count(access.permissions)} access entries (${access.pagedPermissionFiles} files' lists page) and real blobs behind the ${count(access.binaries)} binary rows (${count(access.blobs)} distinct, ${mb(access.blobBytes)}) in ${(access.ms / 1000).toFixed(1)} s`,
    `crawl: conformance crawler (runConformance, probes / second crawl / odd $top off) in a worker thread, ${o.concurrency} in flight (peak ${s.maxInFlight}); ` +
      `${count(s.requests)} requests in ${(s.durationMs / 1000).toFixed(1)} s = ${crawlRps.toFixed(0)} req/s, ${mb(s.bytes)}, latency p50 ${s.latencyMs.p50} / p90 ${s.latencyMs.p90} / p99 ${s.latencyMs.p99} / max ${s.latencyMs.max} ms; ` +
      `statuses ${statusText(s.statusCounts)}; retries ${s.retries}, paced ${s.pacedMs} ms`,
    `crawl by kind: ${Object.entries(s.requestsByKind)
      .map(([kind, n]) => {
        const l = s.latencyByKind[kind as keyof typeof s.latencyByKind];
        return `${kind} ${count(n ?? 0)} (p50 ${l?.p50 ?? '-'} / p99 ${l?.p99 ?? '-'} ms)`;
      })
      .join(', ')}`,
    `crawl saw ${count(crawl.files)} files (${count(crawl.downloads)} downloads, ${count(crawl.downloadsOk)} answered 200), ${count(crawl.groups)} groups, ${count(crawl.users)} users; ` +
      `phase ends (ms after runConformance started): ${crawl.phases.map((p) => `${p.msg.replace(/^conformance: /, '')} ${p.ms.toFixed(0)}`).join(', ')}; runConformance took ${(crawl.workerMs / 1000).toFixed(1)} s in all (contract, crawl, checks)`,
    `replay (baseline): bare keep-alive client in a worker thread, ${whole ? `all the crawl's ${count(replay.requests)} URLs` : `${count(replay.requests)} of the crawl's ${count(crawl.urls.length)} URLs (a seeded ${(o.replayShare * 100).toFixed(0)} % sample)`} in walk order, ${o.concurrency} in flight, bodies read to the end and only counted; ` +
      `${(replay.durationMs / 1000).toFixed(1)} s = ${replay.requestsPerSecond.toFixed(0)} req/s, ${mb(replay.bytes)}, latency p50 ${replay.latencyMs.p50.toFixed(1)} / p99 ${replay.latencyMs.p99.toFixed(1)} ms; statuses ${statusText(replay.statusCounts)}`,
    `server thread busy: ${((crawlRun.serverActiveMs / s.durationMs) * 100).toFixed(0)} % of the crawl (${((crawlRun.serverActiveMs * 1000) / s.requests).toFixed(0)} µs a request), ` +
      `${((replayRun.serverActiveMs / replay.durationMs) * 100).toFixed(0)} % of the replay (${((replayRun.serverActiveMs * 1000) / replay.requests).toFixed(0)} µs a request); ` +
      `process CPU ${((crawlRun.cpuMs * 1000) / s.requests).toFixed(0)} µs a request in the crawl (checks and report included), ${((replayRun.cpuMs * 1000) / replay.requests).toFixed(0)} µs in the replay: ` +
      `on ${os.cpus().length} CPUs the crawler's own work competes with the server thread for a core`,
    `goal ratio ≥ ${GOAL_RATIO}: the crawler may cost at most a fifth of the throughput a bytes-only client gets over the same requests, or the harness rather than the gateway sets a crawl's pace`,
  ];
  if (crawl.urls.length !== s.requests) {
    notes.push(
      `WARNING: the crawl record rebuilds ${count(crawl.urls.length)} requests but the crawler made ${count(s.requests)}: the replay is not exactly the same walk`,
    );
  }
  const statuses = (counts: Record<string, number>): string => Object.keys(counts).sort().join(',');
  if (whole ? statusText(replay.statusCounts) !== statusText(s.statusCounts) : statuses(replay.statusCounts) !== statuses(s.statusCounts)) {
    notes.push(`WARNING: the replay's statuses differ from the crawl's`);
  }
  if (whole && s.bytes > 0 && Math.abs(replay.bytes - s.bytes) / s.bytes > 0.01) {
    notes.push(`WARNING: the replay read ${mb(replay.bytes)}, the crawl ${mb(s.bytes)}`);
  }
  if (crawl.failedChecks.length || crawl.warnedChecks.length) {
    notes.push(
      `the crawler's checks on this gateway: fail ${crawl.failedChecks.join(', ') || 'none'}; warn ${crawl.warnedChecks.join(', ') || 'none'}` +
        (crawl.firstFindings.length ? `; first: ${crawl.firstFindings.join(' | ')}` : ''),
    );
  }
  notes.push(loadNote(load0));

  const name = ctx.postgresUrl ? 'full-crawl-postgres' : 'full-crawl';
  return {
    name,
    durationMs: performance.now() - started,
    measurements: [
      measurement({
        benchmark: name,
        metric: `${ctx.database}: full crawl of ${count(staged.count)} files, ${o.concurrency} in flight${whole ? '' : ' (baseline: replay rate × requests)'}`,
        unit: 's',
        value: s.durationMs / 1000,
        // The replay's rate over all the crawl's requests (its own time when it replayed them all).
        baseline: s.requests / replay.requestsPerSecond,
        goal: { on: 'ratio', op: '<=', target: Math.round((1 / GOAL_RATIO) * 100) / 100 },
      }),
      measurement({
        benchmark: name,
        metric: `${ctx.database}: full crawl requests/s (${count(s.requests)} requests, ${mb(s.bytes)})`,
        unit: 'req/s',
        value: crawlRps,
        baseline: replay.requestsPerSecond,
        goal: { on: 'ratio', op: '>=', target: GOAL_RATIO },
      }),
    ],
    notes,
  };
}
