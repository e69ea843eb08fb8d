import os from 'node:os';
import path from 'node:path';
import type { HttpLoadOptions } from './http-load';
import { loadNote } from './load-note';
import { measureLoad, type LoadRun } from './measure-load';
import { processMemory } from './process-memory';
import { measurement, type BenchmarkResult } from './report';
import { stageFiles } from './stage-files';
import type { LoopbackServer } from 'content-gateway/lib';
import { AUTH_HEADERS, BENCH_API_KEY, benchPaths, startBenchGateway } from './start-bench-gateway';
import { startLibraryFloor } from './start-library-floor';
import { gunicornAvailable, startSampleServer, type SampleServer } from './start-sample-server';

export interface SampleComparisonOptions {
  files: number;
  workers: number;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  rounds: number;
}

const DEFAULTS: SampleComparisonOptions = { files: 50_000, workers: 2, concurrency: 20, warmupMs: 1000, durationMs: 4000, rounds: 3 };
/** Single-file GETs at least twice the sample's rate under gunicorn (issue 18). */
const GET_GOAL = 2;
const IDS_LOADED = 2000;
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function describe(label: string, r: LoadRun): string {
  return `${label}: ${r.requests} requests, ${r.errors} errors, ${r.rps.toFixed(0)} req/s, latency p50 ${r.latencyMs.p50.toFixed(1)} / p99 ${r.latencyMs.p99.toFixed(1)} ms`;
}

/**
 * The gateway against the platform's sample server as a deployment would run it: our stand-in
 * for it (kit/bench/sample-server/sample_gateway.py, Flask, items in memory) under gunicorn with two
 * sync workers, both serving the same 50,000 staged files, under the same 20 keep-alive clients
 * (a worker thread here; gunicorn's sync workers close each connection, as deployed). Rounds
 * interleave the two servers; the best round of each counts. Measured: single-file GETs (ids
 * picked at random) and list pages ($top=100, first pages and nextLink walks of 20 pages).
 * Skipped, with a note, where gunicorn is not installed.
 */
export async function sampleComparison(options: Partial<SampleComparisonOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const load0 = os.loadavg()[0] ?? 0;
  if (!gunicornAvailable()) {
    return {
      name: 'sample-comparison',
      durationMs: performance.now() - started,
      measurements: [],
      notes: ['SKIPPED: gunicorn is not installed (Debian: apt-get install -y python3-flask gunicorn); the comparison with the platform sample did not run'],
    };
  }
  const gateway = await startBenchGateway();
  let sample: SampleServer | undefined;
  let floor: LoopbackServer | undefined;
  try {
    const staged = await stageFiles(gateway.db, o.files);
    const ids = ((await gateway.db('files').where({ status: 'active' }).select('id').orderByRaw('random()').limit(IDS_LOADED)) as Array<{ id: string }>).map(
      (r) => r.id,
    );
    sample = await startSampleServer(benchPaths(path.dirname(gateway.blobDir)).sqlitePath, BENCH_API_KEY, o.workers);
    const rows = (await gateway.db('files').whereIn('id', ids).select('id', 'wire_json')) as Array<{ id: string; wire_json: string }>;
    floor = await startLibraryFloor(new Map(rows.map((r) => [r.id, r.wire_json])));
    const notes: string[] = [
      `${staged.count.toLocaleString('en-US')} files staged in ${(staged.ms / 1000).toFixed(1)} s; the sample (Flask under gunicorn, ${o.workers} sync workers) holds them in memory, as the platform's sample holds its items`,
      `${o.concurrency} keep-alive clients in a worker thread, ${o.warmupMs} ms warm-up + ${o.durationMs} ms measured, ${o.rounds} interleaved rounds each; the best round counts`,
    ];
    const base = (baseUrl: string, seed: number): Omit<HttpLoadOptions, 'firstPaths' | 'crawlStarts' | 'firstPageShare' | 'crawlPages'> => ({
      baseUrl,
      headers: { ...AUTH_HEADERS },
      concurrency: o.concurrency,
      warmupMs: o.warmupMs,
      durationMs: o.durationMs,
      seed,
    });
    const single = (url: string, seed: number) =>
      measureLoad({
        ...base(url, seed),
        firstPaths: ids.map((id) => `/v1/files/${encodeURIComponent(id)}`),
        crawlStarts: [],
        firstPageShare: 1,
        crawlPages: 1,
      });
    const list = (url: string, seed: number) =>
      measureLoad({ ...base(url, seed), firstPaths: ['/v1/files?$top=100'], crawlStarts: ['/v1/files?$top=100'], firstPageShare: 0.25, crawlPages: 20 });
    const best: Record<'ours' | 'sample' | 'floor', Record<'get' | 'list', LoadRun | undefined>> = {
      ours: { get: undefined, list: undefined },
      sample: { get: undefined, list: undefined },
      floor: { get: undefined, list: undefined },
    };
    const keep = (who: 'ours' | 'sample' | 'floor', what: 'get' | 'list', r: LoadRun): void => {
      const current = best[who][what];
      if (!current || r.rps > current.rps) best[who][what] = r;
    };
    for (let round = 0; round < o.rounds; round += 1) {
      keep('ours', 'get', await single(gateway.url, round + 1));
      keep('sample', 'get', await single(sample.url, round + 1));
      keep('floor', 'get', await single(floor.url, round + 1));
      keep('ours', 'list', await list(gateway.url, round + 1));
      keep('sample', 'list', await list(sample.url, round + 1));
    }
    const { ours, sample: theirs, floor: libraries } = best;
    if (!ours.get || !ours.list || !theirs.get || !theirs.list || !libraries.get) throw new Error('no rounds ran');
    notes.push(
      describe('single-file GET, gateway', ours.get),
      describe(`single-file GET, sample under gunicorn (${o.workers} workers)`, theirs.get),
      describe('single-file GET, the libraries alone (Express + helmet + pino-http, one process, the JSON from memory)', libraries.get),
      describe('list pages, gateway', ours.list),
      describe('list pages, sample under gunicorn', theirs.list),
      `list pages: the gateway serves ${(ours.list.rps / theirs.list.rps).toFixed(2)}x the sample's rate`,
      `memory after the rounds: the sample's ${o.workers} workers and master hold ${mib(sample.pids().reduce((sum, pid) => sum + (processMemory(pid)?.anon ?? 0), 0))} of anonymous memory (RssAnon) between them; ` +
        `the gateway's own is measured by the gateway-memory benchmark (at 100,000 files)`,
      loadNote(load0),
    );
    for (const [label, r] of [
      ['gateway', ours.get],
      ['sample', theirs.get],
    ] as const)
      if (r.errors > 0) notes.push(`WARNING: ${label} answered ${r.errors} single-file GETs with an error`);
    return {
      name: 'sample-comparison',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'sample-comparison',
          metric: `GET /v1/files/{id} on ${o.files.toLocaleString('en-US')} files vs the platform sample under gunicorn (${o.workers} workers)`,
          unit: 'req/s',
          value: ours.get.rps,
          baseline: theirs.get.rps,
          goal: { on: 'ratio', op: '>=', target: GET_GOAL },
        }),
        measurement({
          benchmark: 'sample-comparison',
          metric: `the same GETs on the libraries alone (Express + helmet + pino-http, JSON from memory, no auth, validation or database): the ceiling of the line above`,
          unit: 'req/s',
          value: libraries.get.rps,
          baseline: theirs.get.rps,
          goal: { on: 'ratio', op: '>=', target: GET_GOAL },
        }),
      ],
      notes,
    };
  } finally {
    await floor?.close();
    await sample?.close();
    await gateway.close();
  }
}
