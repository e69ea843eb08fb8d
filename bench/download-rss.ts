import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { StagingWriter } from '../src/staging/staging-writer';
import { forceGc } from './force-gc';
import { measurement, type BenchmarkResult } from './report';
import { startBareServer } from './start-bare-server';
import { AUTH_HEADERS, startBenchGateway } from './start-bench-gateway';

export interface DownloadRssOptions {
  sizeMb: number;
  concurrency: number;
  /** Measured rounds of each server (after one unmeasured warm-up round each); the worst counts. */
  rounds: number;
  sampleMs: number;
}

const DEFAULTS: DownloadRssOptions = { sizeMb: 20, concurrency: 20, rounds: 2, sampleMs: 10 };
const MB = 1024 * 1024;
const FILE_ID = 'bench:big-report';

interface Round {
  peakGrowthMb: number;
  ms: number;
  badChecksums: number;
  badLengths: number;
  errors: number;
}

/** One streamed download: hashes the body as it arrives and compares it with `Checksum-SHA256`. */
function download(url: string, agent: http.Agent, expectedSize: number): Promise<{ checksumOk: boolean; lengthOk: boolean }> {
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

async function round(url: string, o: DownloadRssOptions, size: number): Promise<Round> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  forceGc();
  await new Promise((r) => setTimeout(r, 50));
  forceGc();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, o.sampleMs);
  const t0 = performance.now();
  const outcomes = await Promise.allSettled(Array.from({ length: o.concurrency }, () => download(url, agent, size)));
  const ms = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  agent.destroy();
  let badChecksums = 0;
  let badLengths = 0;
  let errors = 0;
  for (const out of outcomes) {
    if (out.status === 'rejected') errors += 1;
    else {
      if (!out.value.checksumOk) badChecksums += 1;
      if (!out.value.lengthOk) badLengths += 1;
    }
  }
  return { peakGrowthMb: (peak - before) / MB, ms, badChecksums, badLengths, errors };
}

function describe(label: string, r: Round, o: DownloadRssOptions): string {
  const mbps = (o.sizeMb * o.concurrency) / (r.ms / 1000);
  return `${label}: peak RSS +${r.peakGrowthMb.toFixed(1)} MB, ${r.ms.toFixed(0)} ms (${mbps.toFixed(0)} MB/s), ${r.errors} errors, ${r.badChecksums} checksum mismatches, ${r.badLengths} length mismatches`;
}

/**
 * Peak RSS growth while 20 clients stream one 20 MB file at once: the gateway's download route
 * against a bare node:http server piping the same blob with fs.createReadStream. Clients run in
 * this process too (RSS is per process), so both figures include the same client cost.
 */
export async function downloadRss(options: Partial<DownloadRssOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const gateway = await startBenchGateway();
  const notes: string[] = [];
  try {
    const stored = await gateway.blobs.put(crypto.randomBytes(o.sizeMb * MB));
    const blobPath = path.join(gateway.blobDir, stored.key.slice(0, 2), stored.key.slice(2, 4), stored.key);
    const modified = new Date().toISOString();
    await new StagingWriter(gateway.db).putFiles([
      {
        file: {
          id: FILE_ID,
          source: 'bench',
          native_id: 'big-report',
          name: 'Big report',
          external_url: 'https://intranet.example/big-report',
          mime_type: 'application/pdf',
          status: 'active',
          size: stored.size,
          sha256: stored.sha256,
          sha1: stored.sha1,
          blob_key: stored.key,
          body_html: null,
          created_at: modified,
          created_by: 'author@example.com',
          modified_at: modified,
          modified_by: 'editor@example.com',
          parent_id: null,
          parent_name: null,
          parent_path: null,
          custom_attributes: null,
        },
        permissions: [{ type: 'GROUP', id: '*' }],
      },
    ]);
    const baseline = await startBareServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': stored.size, 'Checksum-SHA256': stored.sha256 });
      pipeline(fs.createReadStream(blobPath), res).catch(() => res.destroy());
    });
    const gatewayUrl = `${gateway.url}/v1/files/${encodeURIComponent(FILE_ID)}/download`;
    const baselineUrl = `${baseline.url}/download`;
    const gcOk = forceGc();
    notes.push(
      `${o.concurrency} concurrent downloads of a ${o.sizeMb} MB blob, bodies hashed as streams; RSS sampled every ${o.sampleMs} ms; ` +
        `1 warm-up + ${o.rounds} measured rounds each, worst round counts; forced GC before each round: ${gcOk ? 'yes' : 'no (not available)'}`,
    );

    let worstGateway: Round | undefined;
    let worstBaseline: Round | undefined;
    try {
      await round(gatewayUrl, o, stored.size);
      await round(baselineUrl, o, stored.size);
      for (let i = 0; i < o.rounds; i += 1) {
        const b = await round(baselineUrl, o, stored.size);
        const g = await round(gatewayUrl, o, stored.size);
        notes.push(describe(`round ${i + 1} baseline`, b, o), describe(`round ${i + 1} gateway`, g, o));
        if (!worstBaseline || b.peakGrowthMb > worstBaseline.peakGrowthMb) worstBaseline = b;
        if (!worstGateway || g.peakGrowthMb > worstGateway.peakGrowthMb) worstGateway = g;
        if (g.errors + g.badChecksums + g.badLengths > 0) notes.push(`WARNING: gateway round ${i + 1} had failed or corrupt downloads`);
      }
    } finally {
      await baseline.close();
    }
    if (!worstGateway || !worstBaseline) throw new Error('no rounds ran');
    return {
      name: 'download-rss',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'download-rss',
          metric: `peak RSS growth, ${o.concurrency} x ${o.sizeMb} MB downloads`,
          unit: 'MB',
          value: worstGateway.peakGrowthMb,
          baseline: worstBaseline.peakGrowthMb,
          goal: { on: 'value', op: '<', target: 64 },
        }),
      ],
      notes,
    };
  } finally {
    await gateway.close();
  }
}
