import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DbBlobStore } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { createDb } from 'content-gateway';
import { migrateLatest } from 'content-gateway';
import { StagingWriter } from '../../test/helpers/staging-writer';
import { publicPdfRow } from './stage-files';
import type { DownloadServerConfig, DownloadServerReport } from './download-rss-server';
import { measurement, type BenchmarkResult } from './report';
import { AUTH_HEADERS, benchPaths } from './start-bench-gateway';

export interface DownloadRssOptions {
  sizeMb: number;
  concurrency: number;
  /** Rounds of each server, alternating, each in a fresh server process; the worst counts. */
  rounds: number;
  sampleMs: number;
}

const DEFAULTS: DownloadRssOptions = { sizeMb: 20, concurrency: 20, rounds: 3, sampleMs: 10 };
const MB = 1024 * 1024;
const FILE_ID = 'bench:big-report';

interface Round {
  growthMb: number;
  /** Growth of anonymous memory alone (Linux), when known. */
  anonGrowthMb?: number;
  ms: number;
  samples: number;
  gc: boolean;
  errors: number;
  badChecksums: number;
  badLengths: number;
}

/** One streamed download: hashes the body as it arrives and compares it with `Checksum-SHA256`. */
export function download(url: string, agent: http.Agent, expectedSize: number): Promise<{ checksumOk: boolean; lengthOk: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: AUTH_HEADERS as Record<string, string> }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`GET ${url} answered ${res.statusCode}`));
        return;
      }
      const hash = crypto.createHash('sha256');
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
      });
      res.on('end', () => {
        const header = res.headers['checksum-sha256'];
        resolve({ checksumOk: header === hash.digest('hex'), lengthOk: size === expectedSize && Number(res.headers['content-length']) === expectedSize });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type?: string }): void => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null): void => reject(new Error(`download server exited (${code}) before '${type}'`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** One round: a fresh server process, 20 concurrent downloads from here, the server's own RSS peak. */
async function round(config: DownloadServerConfig, o: DownloadRssOptions): Promise<Round> {
  // fork inherits tsx's loader flags from this process, so the child runs TypeScript too.
  const child = fork(path.join(__dirname, 'download-rss-server.ts'), [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const { url } = await nextMessage<{ url: string }>(child, 'ready');
    const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
    const t0 = performance.now();
    const outcomes = await Promise.allSettled(Array.from({ length: o.concurrency }, () => download(url, agent, config.size)));
    const ms = performance.now() - t0;
    agent.destroy();
    const reply = nextMessage<{ report: DownloadServerReport }>(child, 'report');
    child.send({ type: 'stop' });
    const { report } = await reply;
    const r: Round = {
      growthMb: (report.rssPeak - report.rssBefore) / MB,
      ...(report.anonPeak !== undefined && report.anonBefore !== undefined ? { anonGrowthMb: (report.anonPeak - report.anonBefore) / MB } : {}),
      ms,
      samples: report.samples,
      gc: report.gc,
      errors: 0,
      badChecksums: 0,
      badLengths: 0,
    };
    for (const out of outcomes) {
      if (out.status === 'rejected') r.errors += 1;
      else {
        if (!out.value.checksumOk) r.badChecksums += 1;
        if (!out.value.lengthOk) r.badLengths += 1;
      }
    }
    return r;
  } finally {
    if (child.connected) child.disconnect();
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) child.kill();
  }
}

function describe(label: string, r: Round, o: DownloadRssOptions): string {
  const mbps = (o.sizeMb * o.concurrency) / (r.ms / 1000);
  return (
    `${label}: server RSS peak +${r.growthMb.toFixed(1)} MB${r.anonGrowthMb === undefined ? '' : ` (anonymous memory +${r.anonGrowthMb.toFixed(1)} MB)`} (${r.samples} samples), ${r.ms.toFixed(0)} ms (${mbps.toFixed(0)} MB/s), ` +
    `${r.errors} errors, ${r.badChecksums} checksum mismatches, ${r.badLengths} length mismatches`
  );
}

/** The 20 MB blob and its row, staged in a temp folder the server processes open. */
async function stageBigFile(dir: string, sizeMb: number): Promise<Omit<DownloadServerConfig, 'mode' | 'sampleMs'>> {
  const { sqlitePath, blobDir } = benchPaths(dir);
  const db = createDb({ sqlitePath });
  try {
    await migrateLatest(db);
    const bytes = crypto.randomBytes(sizeMb * MB);
    const files = new FsBlobStore(blobDir);
    const stored = await files.put(bytes);
    await new DbBlobStore(db).put(bytes);
    const modified = new Date().toISOString();
    await new StagingWriter(db).putFiles([publicPdfRow(FILE_ID, 'Big report', stored, modified)]);
    const blobPath = files.pathOf(stored.key);
    return { dir, fileId: FILE_ID, blobPath, size: stored.size, sha256: stored.sha256 };
  } finally {
    await db.destroy();
  }
}

/**
 * Peak RSS growth of the serving process while 20 clients stream one 20 MB file at once: the
 * gateway's download route against a bare node:http server piping the same blob with
 * fs.createReadStream. Each round runs the server in a fresh child process (clients stay here),
 * so allocator state left by earlier rounds or benchmarks cannot hide or inflate the figure.
 */
export async function downloadRss(options: Partial<DownloadRssOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-dl-'));
  try {
    const staged = await stageBigFile(dir, o.sizeMb);
    const notes: string[] = [];
    let worstGateway: Round | undefined;
    let worstInDatabase: Round | undefined;
    let worstBaseline: Round | undefined;
    for (let i = 0; i < o.rounds; i += 1) {
      const b = await round({ ...staged, mode: 'baseline', sampleMs: o.sampleMs }, o);
      const g = await round({ ...staged, mode: 'gateway', sampleMs: o.sampleMs }, o);
      const d = await round({ ...staged, mode: 'gateway-db', sampleMs: o.sampleMs }, o);
      notes.push(
        describe(`round ${i + 1} baseline`, b, o),
        describe(`round ${i + 1} gateway`, g, o),
        describe(`round ${i + 1} gateway, BLOB_STORE=database`, d, o),
      );
      if (!worstBaseline || b.growthMb > worstBaseline.growthMb) worstBaseline = b;
      if (!worstGateway || g.growthMb > worstGateway.growthMb) worstGateway = g;
      if (!worstInDatabase || d.growthMb > worstInDatabase.growthMb) worstInDatabase = d;
      for (const [who, r] of [
        ['baseline', b],
        ['gateway', g],
        ['database-store gateway', d],
      ] as const) {
        if (r.errors + r.badChecksums + r.badLengths > 0)
          throw new Error(`download-rss: the ${who} round ${i + 1} had failed or corrupt downloads (${describe('', r, o)})`);
      }
    }
    if (!worstGateway || !worstBaseline || !worstInDatabase) throw new Error('no rounds ran');
    notes.push(
      `with BLOB_STORE=database the worst round grew RSS by ${worstInDatabase.growthMb.toFixed(1)} MB` +
        (worstInDatabase.anonGrowthMb === undefined ? '' : `, anonymous memory by ${worstInDatabase.anonGrowthMb.toFixed(1)} MB`) +
        ': SQLite reads the database through mmap, so the file pages of the blob it read count in RSS too (shared page cache, reclaimable, at most once per page however many downloads read it)',
    );
    notes.unshift(
      `${o.concurrency} concurrent downloads of a ${o.sizeMb} MB blob, hashed as streams by clients in the bench process; server RSS sampled every ${o.sampleMs} ms in a fresh process per round; ` +
        `${o.rounds} rounds each, worst counts; forced GC before the baseline reading: ${worstGateway.gc ? 'yes' : 'no (not available)'}`,
    );
    return {
      name: 'download-rss',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'download-rss',
          metric: `server peak RSS growth, ${o.concurrency} x ${o.sizeMb} MB downloads`,
          unit: 'MB',
          value: worstGateway.growthMb,
          baseline: worstBaseline.growthMb,
          goal: { on: 'value', op: '<', target: 64 },
        }),
      ],
      notes,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
