/**
 * Child process of `downloadRss`: serves one blob, either through the real gateway or through a
 * bare node:http server piping fs.createReadStream, and watches its own RSS. Run in a fresh
 * process per round so every figure starts from the same clean heap and only server memory counts.
 *
 * Protocol (IPC): argv[2] is a JSON `DownloadServerConfig`; the child sends `{ type: 'ready', url }`
 * once it listens and its RSS baseline is taken, answers `{ type: 'stop' }` with a `DownloadServerReport`
 * and exits when the parent disconnects.
 */
import fs from 'node:fs';
import type { S3BlobStoreOptions } from 'content-gateway';
import { pipeline } from 'node:stream/promises';
import { forceGc } from './force-gc';
import { serveToParent, type ServedToParent } from './serve-to-parent';
import { startBareServer } from './start-bare-server';
import { startBenchGateway } from './start-bench-gateway';

export interface DownloadServerConfig {
  /** `gateway-db`: the gateway with BLOB_STORE=database (the blob staged there too); `gateway-s3`: with BLOB_STORE=s3 (in `s3`). */
  mode: 'gateway' | 'gateway-db' | 'gateway-s3' | 'baseline';
  s3?: S3BlobStoreOptions;
  /** Bench data folder (staging database + blobs), staged by the parent. */
  dir: string;
  fileId: string;
  blobPath: string;
  size: number;
  sha256: string;
  sampleMs: number;
}

export interface DownloadServerReport {
  rssBefore: number;
  rssPeak: number;
  /** Anonymous memory only (Linux `RssAnon`): RSS without mapped file pages such as SQLite's mmap. */
  anonBefore?: number;
  anonPeak?: number;
  samples: number;
  gc: boolean;
}

/** `RssAnon` of this process in bytes, where /proc has it. */
function rssAnon(): number | undefined {
  try {
    const kb = /^RssAnon:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

async function main(config: DownloadServerConfig): Promise<ServedToParent<DownloadServerReport>> {
  let url: string;
  let close: () => Promise<void>;
  if (config.mode !== 'baseline') {
    const gateway = await startBenchGateway({
      dir: config.dir,
      blobStore: config.mode === 'gateway-db' ? 'database' : 'directory',
      ...(config.mode === 'gateway-s3' && config.s3 ? { s3: config.s3 } : {}),
    });
    url = `${gateway.url}/v1/files/${encodeURIComponent(config.fileId)}/download`;
    close = gateway.close;
    // The AWS SDK loads parts of itself on its first request: once, before the baseline reading,
    // as a gateway that has served a download has them.
    if (config.mode === 'gateway-s3') await gateway.blobs.stat(config.sha256);
  } else {
    const server = await startBareServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': config.size, 'Checksum-SHA256': config.sha256 });
      pipeline(fs.createReadStream(config.blobPath), res).catch(() => res.destroy());
    });
    url = `${server.url}/download`;
    close = server.close;
  }
  const gc = forceGc();
  await new Promise((r) => setTimeout(r, 100));
  forceGc();
  const rssBefore = process.memoryUsage.rss();
  const anonBefore = rssAnon();
  let rssPeak = rssBefore;
  let anonPeak = anonBefore;
  let samples = 0;
  const sample = (): void => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    const anon = rssAnon();
    if (anon !== undefined && anonPeak !== undefined) anonPeak = Math.max(anonPeak, anon);
  };
  const sampler = setInterval(() => {
    sample();
    samples += 1;
  }, config.sampleMs);

  const report = (): DownloadServerReport => {
    clearInterval(sampler);
    sample();
    return { rssBefore, rssPeak, samples, gc, ...(anonBefore !== undefined && anonPeak !== undefined ? { anonBefore, anonPeak } : {}) };
  };
  return { url, close, report };
}

serveToParent(main);
