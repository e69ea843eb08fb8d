/**
 * Child process of `gatewayMemory`: the bench gateway over an already staged data folder, or a
 * bare node:http server, that samples its own memory while the parent loads it. Run in a fresh
 * process so that only serving counts. Protocol (IPC): argv[2] is a JSON `MemoryServerConfig`;
 * the child sends `{ type: 'ready', url }` once it listens, answers `{ type: 'stop' }` with a
 * `{ type: 'report', report: MemoryServerReport }` and exits when the parent disconnects.
 */
import { forceGc } from './force-gc';
import { processMemory, type ProcessMemory } from './process-memory';
import { serveToParent, type ServedToParent } from './serve-to-parent';
import { startBareServer } from './start-bare-server';
import { startBenchGateway } from './start-bench-gateway';

export interface MemoryServerConfig {
  mode: 'gateway' | 'baseline';
  /** The staged bench data folder (gateway mode). */
  dir: string;
  sampleMs: number;
}

export interface MemoryServerReport {
  /** Once listening, before any request. */
  idle: ProcessMemory;
  /** The highest RssAnon sampled while loaded, with the RSS of that sample. */
  peak: ProcessMemory;
  /** After the load and a full garbage collection. */
  after: ProcessMemory;
  heapUsedAfter: number;
  gc: boolean;
}

const BODY = Buffer.from(JSON.stringify({ '@odata.context': 'http://127.0.0.1/v1/$metadata#Content', value: [] }));

async function main(config: MemoryServerConfig): Promise<ServedToParent<MemoryServerReport>> {
  let url: string;
  let close: () => Promise<void>;
  if (config.mode === 'gateway') {
    const gateway = await startBenchGateway({ dir: config.dir });
    ({ url, close } = gateway);
  } else {
    const server = await startBareServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': BODY.length });
      res.end(BODY);
    });
    ({ url, close } = server);
  }
  const read = (): ProcessMemory => processMemory() ?? { rss: process.memoryUsage.rss(), anon: Number.NaN, file: Number.NaN };
  forceGc();
  const idle = read();
  let peak = idle;
  const sampler = setInterval(() => {
    const now = read();
    if (now.anon > peak.anon) peak = now;
  }, config.sampleMs);
  const report = (): MemoryServerReport => {
    clearInterval(sampler);
    const gc = forceGc();
    return { idle, peak, after: read(), heapUsedAfter: process.memoryUsage().heapUsed, gc };
  };
  return { url, close, report };
}

serveToParent(main);
