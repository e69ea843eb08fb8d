import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { createDb } from '../../src/staging/database/create-db';
import { migrateLatest } from '../../src/staging/database/run-migrations';
import { StagingWriter, type StagedFile } from '../helpers/staging-writer';
import { startCli, type CliProcess } from '../e2e/cli-process';
import { htmlFile } from '../helpers/staging-fixtures';

/**
 * Issue 27 (2): downloads whose clients stopped reading held their admission slots for ever. With
 * `MAX_CONCURRENT_REQUESTS=16`, twenty such readers made every other `/v1` request answer 503.
 * The gateway is the real `serve` command in a process of its own; the readers are raw sockets
 * that send their request, read the status line and then read nothing more, so the download
 * fills the socket buffers and stops. They come from another loopback address (127.0.0.2) than
 * the crawl: another client.
 */
jest.setTimeout(120_000);

const KEY = 'stalled-downloads-key-0123456789abcdef';
const HUGE_BYTES = 32 * 1024 * 1024;
const CAP = 16;
/** The share of the cap one client may hold (`CLIENT_CONCURRENCY_SHARE`, default 0.75). */
const SHARE = 12;
const STALLED = 20;

interface Staged {
  env: Record<string, string>;
  /** Every staged file's id, with its bytes when it is a binary. */
  files: Map<string, Buffer | null>;
}

/** A fresh embedded database with 30 files (a third HTML, the rest small binaries) and one 32 MiB binary, `test:huge`. */
async function stage(dir: string): Promise<Staged> {
  const sqlitePath = path.join(dir, 'gw.sqlite');
  const blobDir = path.join(dir, 'blobs');
  const db = createDb({ sqlitePath });
  await migrateLatest(db);
  const blobs = new FsBlobStore(blobDir);
  const files = new Map<string, Buffer | null>();
  const staged: StagedFile[] = [];
  const binary = async (id: string, bytes: Buffer) => {
    const blob = await blobs.put(bytes);
    files.set(id, bytes);
    staged.push({
      file: htmlFile(id, { mime_type: 'application/pdf', body_html: null, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size }),
      permissions: [{ type: 'GROUP', id: '*' }],
    });
  };
  await binary('test:huge', crypto.randomBytes(HUGE_BYTES));
  for (let i = 0; i < 30; i++) {
    const id = `test:f${String(i).padStart(2, '0')}`;
    if (i % 3 === 0) {
      files.set(id, null);
      staged.push({ file: htmlFile(id), permissions: [{ type: 'USER', id: `user${i}@example.com` }] });
    } else {
      await binary(id, crypto.randomBytes(4096 + i * 1024));
    }
  }
  await new StagingWriter(db).putFiles(staged);
  await db.destroy();
  return {
    files,
    env: {
      SQLITE_PATH: sqlitePath,
      BLOB_DIR: blobDir,
      GATEWAY_API_KEY: KEY,
      DEMO_CONTENT: 'off',
      LOG_LEVEL: 'warn',
      PORT: '0',
      HOST: '127.0.0.1',
      RATE_LIMIT_REQUESTS: '0',
    },
  };
}

async function serve(env: Record<string, string>): Promise<{ server: CliProcess; port: number }> {
  const server = startCli(['serve'], env);
  const line = await server.waitForLine((l) => /listening on http:\/\/localhost:\d+/.test(l), 'the gateway listening');
  return { server, port: Number(/localhost:(\d+)/.exec(line)?.[1]) };
}

interface StalledReader {
  socket: net.Socket;
  status: number;
  /** Resolves with every byte the connection carried, once it is closed. */
  closed: Promise<number>;
}

/**
 * Requests `target` on a raw connection from `localAddress`, reads until the status line and
 * headers are in, then stops reading (the socket is paused; what the server sends piles up in
 * the socket buffers).
 */
function stalledReader(port: number, target: string, localAddress: string): Promise<StalledReader> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    let bytes = 0;
    let head = '';
    const closed = new Promise<number>((done) => socket.once('close', () => done(bytes)));
    socket.on('error', () => undefined); // a cut connection is what some tests wait for
    socket.once('close', () => reject(new Error(`the connection closed before an answer (${bytes} bytes)`)));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.pause();
      resolve({ socket, status: Number(head.split(' ')[1]), closed });
    });
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
  });
}

interface CrawlResult {
  statuses: number[];
  /** What was read of each file: the download's bytes for a binary, the HTML body otherwise. */
  read: Map<string, Buffer | string>;
}

/**
 * The platform's crawl of files, `concurrency` requests at a time from 127.0.0.1: every page of
 * `/v1/files` (10 a page), then each file, its access list and (a binary) its download.
 */
async function crawl(base: string, concurrency: number): Promise<CrawlResult> {
  const statuses: number[] = [];
  const read = new Map<string, Buffer | string>();
  const get = async (url: string): Promise<Response> => {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } });
    statuses.push(res.status);
    return res;
  };
  const ids: string[] = [];
  for (let url: string | undefined = `${base}/v1/files?$top=10`; url;) {
    const res = await get(url);
    if (res.status !== 200) break;
    const page = (await res.json()) as { value: Array<{ id: string }>; '@odata.nextLink'?: string };
    ids.push(...page.value.map((f) => f.id));
    url = page['@odata.nextLink'];
  }
  const queue = [...ids];
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const at = `${base}/v1/files/${encodeURIComponent(id)}`;
      const file = await get(at);
      if (file.status !== 200) continue;
      const { value } = (await file.json()) as { value: { content: { mime_type: string; body?: string } } };
      await (await get(`${at}/permissions`)).arrayBuffer();
      if (value.content.mime_type === 'text/html') {
        read.set(id, value.content.body ?? '');
        continue;
      }
      const download = await get(`${at}/download`);
      const bytes = Buffer.from(await download.arrayBuffer());
      if (download.status === 200) read.set(id, bytes);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { statuses, read };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with `promise`'s value, or with `fallback` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('downloads whose clients stop reading (MAX_CONCURRENT_REQUESTS=16)', () => {
  const STALL_MS = 3_000;
  let dir: string;
  let staged: Staged;
  let gateway: { server: CliProcess; port: number };
  let readers: StalledReader[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stalled-'));
    staged = await stage(dir);
    gateway = await serve({ ...staged.env, MAX_CONCURRENT_REQUESTS: String(CAP), STALL_TIMEOUT_MS: String(STALL_MS) });
  });
  afterAll(async () => {
    for (const r of readers) r.socket.destroy();
    gateway.server.child.kill('SIGTERM');
    await gateway.server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`leave a crawl beside them its slots: ${STALLED} stalled readers of another client hold their share (${SHARE} of ${CAP}), and the crawl reads every file without a 503`, async () => {
    readers = await Promise.all(Array.from({ length: STALLED }, () => stalledReader(gateway.port, '/v1/files/test%3Ahuge/download', '127.0.0.2')));
    // One slot short of what is left: a client sees its answer end a moment before the server frees
    // the answer's slot (on `finish`), and its next request, on another connection, may arrive in
    // between. Seen once in CI-like load as a lone 503 with all four left slots in use.
    const result = await crawl(`http://127.0.0.1:${gateway.port}`, CAP - SHARE - 1);
    expect(result.statuses.filter((s) => s !== 200)).toEqual([]);
    expect([...result.read.keys()].sort()).toEqual([...staged.files.keys()].sort());
    for (const [id, bytes] of staged.files) {
      if (bytes) expect([id, (result.read.get(id) as Buffer).equals(bytes)]).toEqual([id, true]);
    }
    // Beyond its share, the stalled readers' client was refused (503), not the crawl.
    expect(readers.map((r) => r.status).sort()).toEqual([...Array<number>(SHARE).fill(200), ...Array<number>(STALLED - SHARE).fill(503)]);
  });

  it(`cuts the stalled downloads once STALL_TIMEOUT_MS (${STALL_MS} ms) passes without progress, giving their client its slots back`, async () => {
    const stalled = readers.filter((r) => r.status === 200);
    expect(stalled).toHaveLength(SHARE);
    // Generous: Node's socket timeout spares a write that moved at all since it began, so a
    // stalled answer is cut between one and two timeouts after its last byte moved; plus two seconds.
    await sleep(2 * STALL_MS + 2_000);
    const again = await Promise.all(Array.from({ length: SHARE }, () => stalledReader(gateway.port, '/v1/files/test%3Ahuge/download', '127.0.0.2')));
    for (const r of again) r.socket.destroy();
    expect(again.map((r) => r.status)).toEqual(Array<number>(SHARE).fill(200));
    // Each was cut, not finished: reading on now, the client gets what was buffered and then the end.
    for (const r of stalled) r.socket.resume();
    const carried = await Promise.all(stalled.map((r) => within(r.closed, 10_000, -1)));
    for (const bytes of carried) {
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThan(HUGE_BYTES);
    }
  });
});

describe('a download read too slowly to ever finish (RESPONSE_TIMEOUT_MS)', () => {
  const DEADLINE_MS = 4_000;
  let dir: string;
  let gateway: { server: CliProcess; port: number };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-trickle-'));
    const staged = await stage(dir);
    gateway = await serve({ ...staged.env, STALL_TIMEOUT_MS: '2000', RESPONSE_TIMEOUT_MS: String(DEADLINE_MS) });
  });
  afterAll(async () => {
    gateway.server.child.kill('SIGTERM');
    await gateway.server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is cut at the whole-answer deadline though it never stalls', async () => {
    const reader = await stalledReader(gateway.port, '/v1/files/test%3Ahuge/download', '127.0.0.1');
    expect(reader.status).toBe(200);
    // A chunk every 200 ms: progress well within STALL_TIMEOUT_MS, 32 MiB in minutes.
    let reads = 0;
    let trickling = true;
    reader.socket.on('data', () => {
      if (!trickling) return;
      reads += 1;
      reader.socket.pause();
      setTimeout(() => reader.socket.resume(), 200).unref();
    });
    reader.socket.resume();
    // The gateway says it cut the answer: soon after the deadline, though on a loaded machine
    // (CI runs two suites on two cores beside the gateways they start) many seconds late. Read at
    // this pace the whole file would take about 100 s, so 20 s still tells a cut from an end...
    const cut = await within(
      gateway.server.waitForLog((log) => log.msg === 'answer cut: not sent whole within RESPONSE_TIMEOUT_MS', 'the answer cut'),
      20_000,
      undefined,
    );
    expect(cut).toMatchObject({ level: 40, responseTimeoutMs: DEADLINE_MS });
    expect(reads).toBeGreaterThan(DEADLINE_MS / 400);
    // ...and it was: read at full speed now, the connection ends short of the whole file (what
    // the socket buffers held when it was cut, then the end).
    trickling = false;
    reader.socket.resume();
    const bytes = await within(reader.closed, 10_000, -1);
    reader.socket.destroy();
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(HUGE_BYTES);
  });
});
