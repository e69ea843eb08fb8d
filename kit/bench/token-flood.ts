import crypto from 'node:crypto';
import os from 'node:os';
import type { AppConfig } from 'content-gateway';
import { autoSecretChecks } from 'content-gateway';
import { hashClientSecret } from 'content-gateway';
import { spawnModuleWorker } from 'content-gateway/lib';
import { StagingWriter } from '../../test/helpers/staging-writer';
import { publicPdfRow } from './stage-files';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult } from './report';
import { AUTH_HEADERS, startBenchGateway, type BenchGateway } from './start-bench-gateway';
import { workerResult } from './worker-result';

export interface TokenFloodOptions {
  /** Clients sending wrong secrets to /oauth2/token at once. */
  floodConcurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Rounds of idle and flood windows (which goes first alternating); the median of each counts. */
  rounds: number;
  fileKb: number;
  /** `OAUTH_TOKEN_CONCURRENCY` of the measured gateway (default: the setting's default). */
  secretChecks?: number;
}

/** What one worker does (see token-flood-worker.ts). */
export interface TokenFloodJob {
  mode: 'download' | 'flood';
  baseUrl: string;
  downloadPath: string;
  headers: Record<string, string>;
  expectedBytes: number;
  clientId: string;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

export interface TokenFloodReport {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  latencyMs: { p50: number; p90: number; p99: number };
}

const DEFAULTS: TokenFloodOptions = { floodConcurrency: 32, warmupMs: 500, durationMs: 3000, rounds: 5, fileKb: 256 };
const CLIENT_ID = 'bench-platform';
const FILE_ID = 'bench:token-flood-report';

function worker(job: TokenFloodJob): Promise<TokenFloodReport> {
  return workerResult<TokenFloodReport>(spawnModuleWorker(__filename, 'token-flood-worker', { workerData: job }), `token-flood ${job.mode}`);
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function describe(label: string, d: TokenFloodReport, window: number, flood?: TokenFloodReport): string {
  const p = d.latencyMs;
  const statuses = flood
    ? `; token flood answered ${
        Object.entries(flood.statuses)
          .map(([s, n]) => `${n} x ${s}`)
          .join(', ') || 'nothing in the window'
      }`
    : '';
  const latency =
    d.requests > 0
      ? `latency p50 ${p.p50.toFixed(2)} / p90 ${p.p90.toFixed(2)} / p99 ${p.p99.toFixed(2)} ms`
      : `no download completed within the ${window} ms window`;
  return `${label}: ${d.requests} downloads, ${d.errors} errors, ${latency}${statuses}`;
}

/** A binary file row pointing at a random blob of `kb` KiB, served by the bench gateway. */
async function stageFile(gateway: BenchGateway, kb: number): Promise<number> {
  const stored = await gateway.blobs.put(crypto.randomBytes(kb * 1024));
  const modified = new Date().toISOString();
  await new StagingWriter(gateway.db).putFiles([publicPdfRow(FILE_ID, 'Token flood report', stored, modified)]);
  return stored.size;
}

/** Idle and flood windows against one gateway: the download p50 of each, per round. */
async function measure(
  gateway: BenchGateway,
  size: number,
  o: TokenFloodOptions,
  rounds: number,
  label: string,
  notes: string[],
): Promise<{ idle: number[]; flood: number[] }> {
  const job = (mode: TokenFloodJob['mode'], warmupMs: number): TokenFloodJob => ({
    mode,
    baseUrl: gateway.url,
    downloadPath: `/v1/files/${encodeURIComponent(FILE_ID)}/download`,
    headers: { ...AUTH_HEADERS },
    expectedBytes: size,
    clientId: CLIENT_ID,
    concurrency: mode === 'flood' ? o.floodConcurrency : 1,
    warmupMs,
    durationMs: o.durationMs,
  });
  const idle: number[] = [];
  const flood: number[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const runIdle = async (): Promise<void> => {
      const d = await worker(job('download', o.warmupMs));
      notes.push(describe(`${label} round ${round} idle`, d, o.warmupMs + o.durationMs));
      idle.push(d.latencyMs.p50);
    };
    const runFlood = async (): Promise<void> => {
      // The flood starts with the downloads and warms up as long: both windows are the same.
      const [d, f] = await Promise.all([worker(job('download', o.warmupMs)), worker(job('flood', o.warmupMs))]);
      notes.push(describe(`${label} round ${round} during the flood`, d, o.warmupMs + o.durationMs, f));
      flood.push(d.latencyMs.p50);
    };
    if (round % 2 === 1) {
      await runIdle();
      await runFlood();
    } else {
      await runFlood();
      await runIdle();
    }
  }
  return { idle, flood };
}

/**
 * Download latency while `/oauth2/token` is flooded: one keep-alive client downloads a 256 KiB
 * file back to back (its p50 idle is the baseline, measured in the same run) while 32 clients send
 * wrong client secrets as fast as they are answered. Each wrong secret costs a scrypt on libuv's
 * thread pool, the pool that also reads blobs for downloads. The token rate limit is off
 * (`OAUTH_TOKEN_RATE_LIMIT=0`), so only the cap on concurrent secret checks protects serving: the
 * worst case, a flood from many addresses for many client ids. Clients run in worker threads.
 */
export async function tokenFlood(options: Partial<TokenFloodOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const loadBefore = os.loadavg()[0] ?? 0;
  const oauth = async (extra: Partial<AppConfig>): Promise<Partial<AppConfig>> => ({
    oauthClients: [`${CLIENT_ID}:${await hashClientSecret(crypto.randomBytes(24).toString('base64url'))}`],
    oauthSigningKey: crypto.randomBytes(32).toString('hex'),
    oauthTokenRateLimit: 0,
    ...extra,
  });
  const notes: string[] = [
    `${o.floodConcurrency} flood clients (wrong secrets for a configured client id, each re-sending as soon as answered), 1 download client, ${o.fileKb} KiB file from the directory blob store; ` +
      `${o.warmupMs} ms warm-up + ${o.durationMs} ms measured per window, ${o.rounds} rounds of idle and flood windows (which goes first alternating), median p50 of each counts; libuv thread pool ${process.env.UV_THREADPOOL_SIZE ?? 4} threads, ${os.cpus().length} CPUs`,
  ];
  const gateways: BenchGateway[] = [];
  try {
    const capped = await startBenchGateway({ config: await oauth(o.secretChecks === undefined ? {} : { oauthTokenConcurrency: o.secretChecks }) });
    gateways.push(capped);
    const size = await stageFile(capped, o.fileKb);
    const { idle, flood } = await measure(capped, size, o, o.rounds, `OAUTH_TOKEN_CONCURRENCY=${o.secretChecks ?? `auto (${autoSecretChecks()})`}`, notes);
    notes.push(`p50 idle per round: ${idle.map((v) => v.toFixed(2)).join(', ')} ms; during the flood: ${flood.map((v) => v.toFixed(2)).join(', ')} ms`);

    // For scale: the same flood with secret checks effectively uncapped, as before the cap existed.
    const uncapped = await startBenchGateway({ config: await oauth({ oauthTokenConcurrency: 1000 }) });
    gateways.push(uncapped);
    const uncappedSize = await stageFile(uncapped, o.fileKb);
    const before = await measure(uncapped, uncappedSize, o, 1, 'uncapped (OAUTH_TOKEN_CONCURRENCY=1000, the behaviour before the cap)', notes);
    const beforeFlood = median(before.flood);
    notes.push(
      `uncapped: download p50 ${median(before.idle).toFixed(2)} ms idle, ${Number.isNaN(beforeFlood) ? `over ${o.warmupMs + o.durationMs} ms (none completed)` : `${beforeFlood.toFixed(2)} ms (${(beforeFlood / median(before.idle)).toFixed(1)}x)`} during the flood`,
      loadNote(loadBefore),
    );

    return {
      name: 'token-flood',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'token-flood',
          metric: `download p50 during a flood of ${o.floodConcurrency} parallel wrong client secrets`,
          unit: 'ms',
          value: median(flood),
          baseline: median(idle),
          goal: { on: 'ratio', op: '<=', target: 2 },
        }),
      ],
      notes,
    };
  } finally {
    for (const g of gateways) await g.close();
  }
}
