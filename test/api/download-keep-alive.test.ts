import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { createDb } from '../../src/staging/database/create-db';
import { migrateLatest } from '../../src/staging/database/run-migrations';
import { StagingWriter } from '../helpers/staging-writer';
import { startCli, type CliProcess } from '../e2e/cli-process';
import { htmlFile } from '../helpers/staging-fixtures';

/**
 * Issue 14 (5): every download logged `MaxListenersExceededWarning` (11,000 lines in 30 s). The
 * gateway is the real `serve` command in a process of its own (its app, its graceful-drain wiring),
 * whose stderr is where Node prints process warnings. (Jest gives each test file a copy of
 * `process`, on which `process.on('warning')` never fires.)
 */
jest.setTimeout(60_000);

const KEY = 'keep-alive-key-0123456789abcdef';

describe('downloads on one keep-alive connection, served by `serve`', () => {
  let dir: string;
  let base: string;
  let server: CliProcess;
  const bytes = crypto.randomBytes(300 * 1024);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-keep-alive-'));
    const env = {
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: KEY,
      DEMO_CONTENT: 'off',
      LOG_LEVEL: 'warn',
      PORT: '0',
      HOST: '127.0.0.1',
    };
    const db = createDb({ sqlitePath: env.SQLITE_PATH });
    await migrateLatest(db);
    const blob = await new FsBlobStore(env.BLOB_DIR).put(bytes);
    await new StagingWriter(db).putFiles([
      {
        file: htmlFile('test:deck', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
    await db.destroy();
    server = startCli(['serve'], env);
    const line = await server.waitForLine((l) => /listening on http:\/\/localhost:\d+/.test(l), 'the gateway listening');
    base = `http://127.0.0.1:${/localhost:(\d+)/.exec(line)?.[1] ?? ''}`;
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves 200 downloads (whole, ranged, conditional) without a single process warning', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<unknown>();
      const variants: Array<Record<string, string>> = [
        {},
        { Range: 'bytes=0-99' },
        { 'If-None-Match': `"${crypto.createHash('sha256').update(bytes).digest('hex')}"` },
        {},
      ];
      for (let i = 0; i < 200; i++) {
        const headers = { Authorization: `Bearer ${KEY}`, ...variants[i % variants.length] };
        const { status, length } = await new Promise<{ status: number; length: number }>((resolve, reject) => {
          http
            .get(`${base}/v1/files/test%3Adeck/download`, { agent, headers }, (res) => {
              sockets.add(res.socket);
              let length = 0;
              res.on('data', (c: Buffer) => (length += c.length));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, length }));
            })
            .on('error', reject);
        });
        expect([status, length]).toEqual(i % 4 === 1 ? [206, 100] : i % 4 === 2 ? [304, 0] : [200, bytes.length]);
      }
      expect(sockets.size).toBe(1); // one keep-alive connection throughout
      // A last request, answered after every earlier warning would have been printed.
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect(server.stderr().split('\n').filter(Boolean).slice(0, 2)).toEqual([]);
    } finally {
      agent.destroy();
    }
  });

  it('closes the blob file of every download its client abandons midway', async () => {
    const blobFiles = () => {
      const fdDir = `/proc/${server.pid}/fd`;
      return fs.readdirSync(fdDir).filter((fd) => {
        try {
          return fs.readlinkSync(path.join(fdDir, fd)).startsWith(path.join(dir, 'blobs'));
        } catch {
          return false; // closed meanwhile
        }
      });
    };
    if (!fs.existsSync(`/proc/${server.pid}/fd`)) return; // Linux only
    const abandoned = await Promise.all(
      Array.from(
        { length: 10 },
        () =>
          new Promise<http.IncomingMessage>((resolve, reject) => {
            http.get(`${base}/v1/files/test%3Adeck/download`, { headers: { Authorization: `Bearer ${KEY}` } }, resolve).on('error', reject);
          }),
      ),
    );
    for (const res of abandoned) res.destroy();
    for (let i = 0; i < 50 && blobFiles().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(blobFiles()).toEqual([]);
  });
});
