import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { BenchContext } from './bench-context';
import { nextMessage } from './download-rss';
import type { MemoryServerConfig, MemoryServerReport } from './gateway-memory-server';
import { getJson } from './http-get';
import { httpLoad } from './http-load';
import { loadNote } from './load-note';
import type { ProcessMemory } from './process-memory';
import { measurement, type BenchmarkResult } from './report';
import { AUTH_HEADERS } from './start-bench-gateway';

export interface GatewayMemoryOptions {
  concurrency: number;
  /** Each of the two loaded phases (list pages, single-file GETs). */
  loadMs: number;
  sampleMs: number;
}

const DEFAULTS: GatewayMemoryOptions = { concurrency: 20, loadMs: 5000, sampleMs: 50 };
/** The gateway's own memory under load at 100,000 files stays under this (issue 18). */
const GOAL_MIB = 100;
const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;
const show = (m: ProcessMemory): string => `own (RssAnon) ${mib(m.anon)}, RSS ${mib(m.rss)} of which file-backed ${mib(m.file)}`;

/** The load every server gets: a whole crawl at $top=1000 in both orders, list pages and single-file GETs under 20 clients. */
async function drive(url: string, ids: readonly string[], o: GatewayMemoryOptions): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let pages = 0;
  try {
    for (const orderby of ['', '&$orderby=last_modified_datetime']) {
      let next: string | undefined = `${url}/v1/files?$top=1000${orderby}`;
      while (next) {
        const body: { '@odata.nextLink'?: string } = await getJson(next, agent, { ...AUTH_HEADERS });
        pages += 1;
        next = body['@odata.nextLink'];
      }
    }
  } finally {
    agent.destroy();
  }
  const common = { baseUrl: url, headers: { ...AUTH_HEADERS }, concurrency: o.concurrency, warmupMs: 0, durationMs: o.loadMs, seed: 1 };
  const lists = ['/v1/files?$top=100', '/v1/files?$top=100&$orderby=last_modified_datetime'];
  const list = await httpLoad({ ...common, firstPaths: lists, crawlStarts: lists, firstPageShare: 0.25, crawlPages: 20 });
  const single = await httpLoad({
    ...common,
    firstPaths: ids.map((id) => `/v1/files/${encodeURIComponent(id)}`),
    crawlStarts: [],
    firstPageShare: 1,
    crawlPages: 1,
  });
  return pages + list.requests + single.requests;
}

/** One server process (fresh), loaded, and what it reported about its memory. */
async function measureServer(
  config: MemoryServerConfig,
  ids: readonly string[],
  o: GatewayMemoryOptions,
): Promise<{ report: MemoryServerReport; requests: number }> {
  // fork inherits tsx's loader flags from this process, so the child runs TypeScript too.
  const child = fork(path.join(__dirname, 'gateway-memory-server.ts'), [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const { url } = await nextMessage<{ url: string }>(child, 'ready');
    const requests = await drive(url, ids, o);
    const reply = nextMessage<{ report: MemoryServerReport }>(child, 'report');
    child.send({ type: 'stop' });
    return { report: (await reply).report, requests };
  } finally {
    child.disconnect();
    await exited;
  }
}

/**
 * The gateway's own memory at 100,000 files: a fresh gateway process over the shared staged
 * corpus, loaded with a whole crawl at $top=1000 in both orders, 5 s of list pages and 5 s of
 * single-file GETs under 20 keep-alive clients, sampling itself every 50 ms. "Own" memory is the
 * process's anonymous resident memory (Linux RssAnon: the JS heaps of its threads, the SQLite read
 * worker's included, native allocations, JIT code, stacks), not RSS: RSS also counts file pages
 * (the node binary, libraries, SQLite's memory-mapped database file), which are the OS page cache,
 * shared with other processes and reclaimed under pressure. What the gateway holds of its own is
 * that, at its peak under load, minus the same figure of a bare node:http server process started
 * the same way (same Node, same TypeScript loader: the bench runs under tsx, whose compiled
 * sources alone hold tens of MiB that the built server does not) under the same load.
 */
export async function gatewayMemory(ctx: BenchContext, options: Partial<GatewayMemoryOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  const { gateway, staged } = await ctx.stagedGateway();
  const ids = ((await gateway.db('files').where({ status: 'active' }).select('id').orderBy('content_hash').limit(2000)) as Array<{ id: string }>).map(
    (r) => r.id,
  );
  const dir = path.dirname(gateway.blobDir);
  const ours = await measureServer({ mode: 'gateway', dir, sampleMs: o.sampleMs }, ids, o);
  const bare = await measureServer({ mode: 'baseline', dir, sampleMs: o.sampleMs }, ids, o);
  const g = ours.report;
  const b = bare.report;
  const notes = [
    `${staged.count.toLocaleString('en-US')} files staged (SQLite); each server a fresh process, loaded with a whole crawl at $top=1000 in both orders, then ${o.loadMs / 1000} s of list pages and ${o.loadMs / 1000} s of single-file GETs under ${o.concurrency} clients (${ours.requests.toLocaleString('en-US')} requests to the gateway)`,
    `gateway idle: ${show(g.idle)}; peak under load: ${show(g.peak)}; after the load and a full GC: ${show(g.after)}, JS heap ${mib(g.heapUsedAfter)}${g.gc ? '' : ' (no GC available)'}`,
    `bare node:http server (same Node and loader) idle: ${show(b.idle)}; peak: ${show(b.peak)}: what Node and the loader hold, so the gateway's own on top of them is ${mib(g.peak.anon - b.peak.anon)} at peak, ${mib(g.after.anon - b.peak.anon)} after the load and a GC`,
    loadNote(load0),
  ];
  return {
    name: 'gateway-memory',
    durationMs: performance.now() - started,
    measurements: [
      measurement({
        benchmark: 'gateway-memory',
        metric: `own memory at peak under load, ${staged.count.toLocaleString('en-US')} files: RssAnon minus a bare node:http server's (baseline: the bare server's RssAnon)`,
        unit: 'MiB',
        value: (g.peak.anon - b.peak.anon) / MiB,
        baseline: b.peak.anon / MiB,
        goal: { on: 'value', op: '<', target: GOAL_MIB },
      }),
    ],
    notes,
  };
}
