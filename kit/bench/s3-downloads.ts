import { fork } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createDb, FsBlobStore, migrateLatest, S3BlobStore, type S3BlobStoreOptions } from 'content-gateway';
import { S3RVER_CREDENTIALS } from '../src/mocks/s3/start-s3-server';
import { StagingWriter } from '../../test/helpers/staging-writer';
import { download, nextMessage } from './download-rss';
import type { DownloadServerConfig, DownloadServerReport } from './download-rss-server';
import { measurement, type BenchmarkResult } from './report';
import { benchPaths } from './start-bench-gateway';
import { publicPdfRow } from './stage-files';

export interface S3DownloadsOptions {
  sizeMb: number;
  concurrency: number;
  /** Downloads each client makes, one after the other. */
  perClient: number;
  /** Rounds of each store, alternating, each in a fresh gateway process; the median counts. */
  rounds: number;
}

const DEFAULTS: S3DownloadsOptions = { sizeMb: 20, concurrency: 20, perClient: 2, rounds: 3 };
const MB = 1024 * 1024;
const FILE_ID = 'bench:s3-report';

interface Round {
  mbps: number;
  growthMb: number;
  failed: number;
}

/** The blob in the folder store and in the bucket, and its row, in a bench data folder the gateway processes open. */
async function stage(dir: string, s3: S3BlobStoreOptions, sizeMb: number): Promise<{ size: number; sha256: string; blobPath: string }> {
  const { sqlitePath, blobDir } = benchPaths(dir);
  const db = createDb({ sqlitePath });
  try {
    await migrateLatest(db);
    const bytes = crypto.randomBytes(sizeMb * MB);
    const files = new FsBlobStore(blobDir);
    const stored = await files.put(bytes);
    const bucket = new S3BlobStore(s3, db);
    await bucket.put(bytes);
    bucket.close();
    await new StagingWriter(db).putFiles([publicPdfRow(FILE_ID, 'Report in a bucket', stored, new Date().toISOString())]);
    return { size: stored.size, sha256: stored.sha256, blobPath: files.pathOf(stored.key) };
  } finally {
    await db.destroy();
  }
}

/** One round: a fresh gateway process, `concurrency` clients each downloading `perClient` times, the server's RSS peak. */
async function round(config: DownloadServerConfig, o: S3DownloadsOptions): Promise<Round> {
  const child = fork(path.join(__dirname, 'download-rss-server.ts'), [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const { url } = await nextMessage<{ url: string }>(child, 'ready');
    const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
    let failed = 0;
    const client = async (): Promise<void> => {
      for (let i = 0; i < o.perClient; i += 1) {
        const outcome = await download(url, agent, config.size).catch(() => undefined);
        if (!outcome?.checksumOk || !outcome.lengthOk) failed += 1;
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: o.concurrency }, client));
    const seconds = (performance.now() - t0) / 1000;
    agent.destroy();
    const reply = nextMessage<{ report: DownloadServerReport }>(child, 'report');
    child.send({ type: 'stop' });
    const { report } = await reply;
    return { mbps: (o.sizeMb * o.concurrency * o.perClient) / seconds, growthMb: (report.rssPeak - report.rssBefore) / MB, failed };
  } finally {
    if (child.connected) child.disconnect();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) child.kill();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Downloads served from the S3 store against the folder store: `concurrency` clients at once,
 * each streaming the same blob `perClient` times through the real gateway (a fresh process per
 * round, the stores alternating), the S3-compatible server (s3rver) in a process of its own on
 * loopback. Throughput is the goal's ratio (S3 / folder), the server's peak RSS growth shows memory
 * stays flat.
 */
export async function s3Downloads(options: Partial<S3DownloadsOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-s3-'));
  const bucket = `bench-${crypto.randomBytes(4).toString('hex')}`;
  const server = fork(path.join(__dirname, 's3-server-process.ts'), [JSON.stringify({ bucket })], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { url: endpoint } = await nextMessage<{ url: string }>(server, 'ready');
    const s3 = { bucket, prefix: 'blobs', region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { ...S3RVER_CREDENTIALS } };
    const staged = await stage(dir, s3, o.sizeMb);
    const base = { dir, fileId: FILE_ID, ...staged, sampleMs: 10, s3 };
    const folder: Round[] = [];
    const inS3: Round[] = [];
    for (let i = 0; i < o.rounds; i += 1) {
      folder.push(await round({ ...base, mode: 'gateway' }, o));
      inS3.push(await round({ ...base, mode: 'gateway-s3' }, o));
    }
    const failed = [...folder, ...inS3].reduce((n, r) => n + r.failed, 0);
    if (failed > 0) throw new Error(`s3-downloads: ${failed} downloads failed or had other bytes`);
    const describe = (label: string, rounds: Round[]) =>
      `${label}: ${rounds.map((r) => `${r.mbps.toFixed(0)} MB/s (RSS +${r.growthMb.toFixed(1)} MB)`).join(', ')}`;
    return {
      name: 's3-downloads',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 's3-downloads',
          metric: `download throughput, ${o.concurrency} clients x ${o.perClient} x ${o.sizeMb} MB, S3 store vs folder store`,
          unit: 'MB/s',
          value: median(inS3.map((r) => r.mbps)),
          baseline: median(folder.map((r) => r.mbps)),
          goal: { on: 'ratio', op: '>=', target: 0.5 },
        }),
        measurement({
          benchmark: 's3-downloads',
          metric: `server peak RSS growth, ${o.concurrency} clients, S3 store (folder store as baseline)`,
          unit: 'MB',
          value: Math.max(...inS3.map((r) => r.growthMb)),
          baseline: Math.max(...folder.map((r) => r.growthMb)),
          goal: { on: 'value', op: '<', target: 64 },
        }),
      ],
      notes: [
        `${o.rounds} rounds each, alternating, a fresh gateway process per round; s3rver in a process of its own on loopback; every download hashed and compared with Checksum-SHA256`,
        describe('folder store', folder),
        describe('S3 store', inS3),
      ],
    };
  } finally {
    if (server.connected) server.disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
