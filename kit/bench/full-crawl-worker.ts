/**
 * The worker half of `full-crawl`: either the conformance crawler's platform walk (`crawl`), or a
 * bare replay of the URLs that walk requested (`replay`). Not imported by anything; `runFullCrawlWorker`
 * starts it with a `FullCrawlJob` as `workerData` and receives one message back. A worker keeps
 * the client's work off the server's thread, as the platform's crawler is off the gateway's host.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import type { CrawlRecord, CrawlStats, ListingSummary } from 'content-gateway/conformance';
import type { Finding } from 'content-gateway/conformance';
import { runConformance } from 'content-gateway/conformance';
import type { CrawlJob, CrawlOutcome, FullCrawlJob, ReplayJob, ReplayOutcome } from './full-crawl-jobs';

/** Every page URL of one listing, in the order the walk followed them (as `listAll` resolves them). */
function pageUrls(l: ListingSummary): string[] {
  const out = [l.firstUrl];
  let url = l.firstUrl;
  for (const next of l.nextLinks) {
    url = /^https?:\/\//i.test(next) ? next : new URL(next, url).href;
    out.push(url);
  }
  return out;
}

/**
 * The crawl's requests, rebuilt from its record in walk order: the permission model; each files
 * page followed by, per active file listed on it, its metadata, its download (binaries) and its
 * access-list pages; the groups pages and each group's member pages; the users pages. Lists that
 * paged are in the record's notable listings (up to 1,000 of them); a count that disagrees with
 * the recorder's is reported, not hidden.
 */
function crawlUrls(crawl: CrawlRecord): string[] {
  const byCollection = new Map<string, ListingSummary>();
  for (const l of crawl.listings) if (!byCollection.has(l.collection)) byCollection.set(l.collection, l);
  const pagesOf = (collection: string, firstUrl: string): string[] => {
    const l = byCollection.get(collection);
    return l ? pageUrls(l) : [firstUrl];
  };
  const urls: string[] = [];
  if (crawl.metadata) urls.push(crawl.metadata.url);
  const filesByPage = new Map<string, CrawlRecord['files']>();
  for (const f of crawl.files) {
    let list = filesByPage.get(f.listing.url);
    if (!list) filesByPage.set(f.listing.url, (list = []));
    list.push(f);
  }
  const files = byCollection.get('files');
  for (const page of files ? pageUrls(files) : []) {
    urls.push(page);
    for (const f of filesByPage.get(page) ?? []) {
      if (f.detail) urls.push(f.detail.url);
      if (f.download) urls.push(f.download.url);
      if (f.permissions) urls.push(...pagesOf(`permissions:${f.listing.id}`, f.permissions.url));
    }
  }
  const groups = byCollection.get('groups');
  if (groups) urls.push(...pageUrls(groups));
  for (const g of crawl.groups) if (g.members) urls.push(...pagesOf(`members:${g.id}`, g.members.url));
  const users = byCollection.get('users');
  if (users) urls.push(...pageUrls(users));
  return urls;
}

async function crawl(job: CrawlJob): Promise<CrawlOutcome> {
  // The crawler logs the end of each phase; the times say where the crawl spent its wall clock.
  const phases: Array<{ msg: string; at: number }> = [];
  const logger = pino(
    { level: 'info', base: undefined },
    {
      write(line: string) {
        const msg = (JSON.parse(line) as { msg?: string }).msg ?? '';
        phases.push({ msg, at: performance.now() });
      },
    },
  );
  const t0 = performance.now();
  const report = await runConformance({
    baseUrl: job.baseUrl,
    key: job.key,
    profile: 'strict',
    concurrency: job.concurrency,
    probes: false,
    secondCrawl: false,
    oddTop: 0,
    logger,
  });
  const stats: CrawlStats = report.stats;
  const worst = (severity: Finding['severity']): string[] =>
    report.checks.filter((c) => c.severity === severity).map((c) => `${c.check} (${c.counts[severity]})`);
  const firstFindings = report.findings
    .filter((f) => f.severity !== 'pass')
    .slice(0, 8)
    .map((f) => `${f.severity} ${f.check}: ${f.message}`);
  return {
    stats,
    urls: crawlUrls(report.crawl),
    files: report.crawl.files.length,
    downloads: report.crawl.files.filter((f) => f.download).length,
    downloadsOk: report.crawl.files.filter((f) => f.download?.status === 200).length,
    users: report.crawl.users.length,
    groups: report.crawl.groups.length,
    notableListings: report.crawl.listings.length,
    phases: phases.map((p) => ({ msg: p.msg, ms: p.at - t0 })),
    workerMs: performance.now() - t0,
    failedChecks: worst('fail'),
    warnedChecks: worst('warn'),
    firstFindings,
  };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/**
 * `concurrency` loops over one keep-alive agent, each taking the next URL in order and reading
 * its body to the end (counting bytes, nothing else): no parsing, validation or hashing.
 */
async function replay(job: ReplayJob): Promise<ReplayOutcome> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  // Split once, before the clock starts: the bare client pays for nothing but HTTP.
  const targets = job.urls.map((u) => {
    const url = new URL(u);
    const path = u.slice(url.origin.length);
    return {
      hostname: url.hostname,
      port: url.port,
      path,
      headers: {
        'User-Agent': 'content-gateway-bench-replay/1',
        Accept: path.endsWith('/download') ? '*/*' : 'application/json',
        Authorization: `Bearer ${job.key}`,
      },
    };
  });
  const latencies = new Float64Array(targets.length);
  const statusCounts: Record<string, number> = {};
  let bytes = 0;
  let next = 0;
  const one = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const t = targets[i] as (typeof targets)[number];
      const startedAt = performance.now();
      const done = (status: string) => {
        latencies[i] = performance.now() - startedAt;
        statusCounts[status] = (statusCounts[status] ?? 0) + 1;
        resolve();
      };
      const req = http.request({ hostname: t.hostname, port: t.port, path: t.path, method: 'GET', headers: t.headers, agent }, (res) => {
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => done(String(res.statusCode ?? 0)));
        res.on('error', () => done('error'));
      });
      req.on('error', () => done('error'));
      req.end();
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      for (let i = next++; i < targets.length; i = next++) await one(i);
    }),
  );
  const durationMs = performance.now() - started;
  agent.destroy();
  latencies.sort();
  return {
    requests: targets.length,
    bytes,
    durationMs,
    requestsPerSecond: (targets.length * 1000) / durationMs,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    statusCounts,
  };
}

const job = workerData as FullCrawlJob;
(job.mode === 'crawl' ? crawl(job) : replay(job)).then(
  (result) => parentPort?.postMessage(result),
  (error: unknown) => {
    throw error;
  },
);
