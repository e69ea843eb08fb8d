import http from 'node:http';
import type { Db } from 'content-gateway';
import type { BenchContext } from './bench-context';
import { TOKEN_STRIDE } from './bench-context';
import { captureQueries, explainQuery, timeQuery } from './explain-gateway-query';
import { httpGet } from './http-get';
import { measurement, type BenchmarkResult, type Measurement } from './report';
import { AUTH_HEADERS } from './start-bench-gateway';

export interface DeepPageOptions {
  /** Requests of each page (first and deep, interleaved) that are timed. */
  requests: number;
  warmup: number;
  depth: number;
}

const DEFAULTS: DeepPageOptions = { requests: 400, warmup: 50, depth: 0.9 };
const TOP = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Median latency of two URLs, `requests` times each after `warmup`, interleaved one at a time (which goes first alternating). */
export async function interleavedMedians(
  agent: http.Agent,
  firstUrl: string,
  deepUrl: string,
  o: { requests: number; warmup: number },
): Promise<{ first: number; deep: number }> {
  const time = async (url: string): Promise<number> => {
    const t0 = performance.now();
    const res = await httpGet(url, agent, AUTH_HEADERS);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
    return ms;
  };
  for (let i = 0; i < o.warmup; i += 1) {
    await time(firstUrl);
    await time(deepUrl);
  }
  const firstTimes: number[] = [];
  const deepTimes: number[] = [];
  for (let i = 0; i < o.requests; i += 1) {
    // Alternate which goes first, so neither always follows the other.
    if (i % 2 === 0) {
      firstTimes.push(await time(firstUrl));
      deepTimes.push(await time(deepUrl));
    } else {
      deepTimes.push(await time(deepUrl));
      firstTimes.push(await time(firstUrl));
    }
  }
  return { first: median(firstTimes), deep: median(deepTimes) };
}

/** Why a deep page is slow, if it is: the files statement the gateway runs for each page, its plan and its bare cost. */
export async function explainPages(db: Db, agent: http.Agent, firstUrl: string, deepUrl: string, label: string): Promise<string[]> {
  const get = (url: string) => httpGet(url, agent, AUTH_HEADERS);
  const [firstSql] = (await captureQueries(db, () => get(firstUrl))).filter((q) => /from [`"]files[`"]/i.test(q.sql));
  const [deepSql] = (await captureQueries(db, () => get(deepUrl))).filter((q) => /from [`"]files[`"]/i.test(q.sql));
  if (!firstSql || !deepSql) return [];
  // One after the other: the SQLite pool has one connection, and parallel timings would overlap.
  const firstPlan = await explainQuery(db, firstSql);
  const deepPlan = await explainQuery(db, deepSql);
  const firstMs = await timeQuery(db, firstSql, 50);
  const deepMs = await timeQuery(db, deepSql, 50);
  return [
    `order ${label}: deep SQL: ${deepSql.sql}`,
    `order ${label}: plan first page: ${firstPlan.join(' | ')}; deep page: ${deepPlan.join(' | ')}`,
    `order ${label}: SQL alone (median of 50): first ${firstMs.toFixed(2)} ms, deep ${deepMs.toFixed(2)} ms`,
  ];
}

/**
 * The latency of a page at 90 % depth against the first page, one request at a time over a
 * keep-alive connection, interleaved so drift hits both alike. Keyset paging promises equal cost
 * at any depth, so the ratio should sit near 1. Done for the default order (id) and by date.
 */
export async function deepPage(ctx: BenchContext, options: Partial<DeepPageOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const { gateway } = await ctx.stagedGateway();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const measurements: Measurement[] = [];
  const notes: string[] = [`${o.requests} timed requests of each page after ${o.warmup} warm-up each, interleaved, one at a time; median latency`];

  try {
    for (const orderby of ['', 'last_modified_datetime']) {
      const tokens = await ctx.skipTokens(orderby);
      const index = Math.round((ctx.fileCount * o.depth) / TOKEN_STRIDE) - 1;
      const token = tokens[index];
      if (!token) throw new Error(`no skiptoken at ${o.depth * 100} % depth for order '${orderby || 'id'}'`);
      const firstUrl = `${gateway.url}/v1/files?$top=${TOP}${orderby ? `&$orderby=${orderby}` : ''}`;
      const deepUrl = `${gateway.url}/v1/files?$top=${TOP}&$skiptoken=${token}`;
      const label = orderby || 'id (default)';
      const crawl = ctx.crawls.get(orderby);
      if (crawl) {
        const ok = crawl.rows === ctx.fileCount && crawl.unique === ctx.fileCount;
        notes.push(
          `order ${label}: full crawl at $top=${TOKEN_STRIDE}: ${crawl.pages} pages, ${crawl.rows} rows, ${crawl.unique} distinct of ${ctx.fileCount} staged${ok ? '' : ' -- WARNING: paging repeats or skips rows'}`,
        );
      }

      const medians = await interleavedMedians(agent, firstUrl, deepUrl, o);
      measurements.push(
        measurement({
          benchmark: 'deep-page',
          metric: `page at ${o.depth * 100} % depth vs first, order ${label}`,
          unit: 'ms',
          value: medians.deep,
          baseline: medians.first,
          goal: { on: 'ratio', op: '<=', target: 1.2 },
        }),
      );
      notes.push(...(await explainPages(gateway.db, agent, firstUrl, deepUrl, label)));
    }
  } finally {
    agent.destroy();
  }
  return { name: 'deep-page', durationMs: performance.now() - started, measurements, notes };
}
