import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import selfsigned from 'selfsigned';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { createDb } from '../../src/staging/database/create-db';
import { migrateLatest } from '../../src/staging/database/run-migrations';
import { StagingWriter } from '../helpers/staging-writer';
import { useBuiltProgram } from '../helpers/built-program';
import { readRest } from '../helpers/read-rest';
import { htmlFile } from '../helpers/staging-fixtures';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');
const MAIN = useBuiltProgram();

function run(args: string[], env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, cwd: ROOT });
}

function waitFor(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(pattern);
      if (m) resolve(m);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code} before ${pattern}: ${out}`)));
  });
}

/** A fresh embedded database with one 24 MiB binary, `test:big`, and the env to serve it. */
async function stageBigDownload(dir: string): Promise<{ bytes: Buffer; env: Record<string, string> }> {
  const sqlitePath = path.join(dir, 'gw.sqlite');
  const blobDir = path.join(dir, 'blobs');
  const db = createDb({ sqlitePath });
  await migrateLatest(db);
  const bytes = crypto.randomBytes(24 * 1024 * 1024);
  const blob = await new FsBlobStore(blobDir).put(bytes);
  await new StagingWriter(db).putFiles([
    {
      file: htmlFile('test:big', { mime_type: 'application/pdf', body_html: null, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size }),
      permissions: [],
    },
  ]);
  await db.destroy();
  return { bytes, env: { PORT: '0', SQLITE_PATH: sqlitePath, BLOB_DIR: blobDir, GATEWAY_API_KEY: 'shutdown-key-0123456789' } };
}

describe('content-gateway serve (the README start command, on a fresh data folder)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('migrates, loads the demo corpus, makes a development key, serves every endpoint, and stops cleanly on SIGTERM', async () => {
    const child = run(['serve'], { PORT: '0', SQLITE_PATH: path.join(dir, 'gw.sqlite'), BLOB_DIR: path.join(dir, 'blobs') });
    const [, port] = await waitFor(child, /listening on http:\/\/localhost:(\d+)\//);
    const key = fs.readFileSync(path.join(dir, 'dev-api-key'), 'utf8').trim();
    expect(fs.statSync(path.join(dir, 'dev-api-key')).mode & 0o777).toBe(0o600);
    const base = `http://127.0.0.1:${port}`;
    const get = async (p: string) => {
      const res = await fetch(`${base}${p}`, { headers: { Authorization: key } });
      expect(res.status).toBe(200);
      return res;
    };

    const files = (await (await get('/v1/files')).json()) as { value: Array<{ id: string; content: { mime_type: string } }> };
    const types = new Set(files.value.map((f) => f.content.mime_type));
    expect(types).toEqual(
      new Set([
        'text/html',
        'application/pdf',
        'text/plain',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      ]),
    );
    const pdf = files.value.find((f) => f.content.mime_type === 'application/pdf');
    const download = await get(`/v1/files/${encodeURIComponent(pdf?.id ?? '')}/download`);
    expect(
      Buffer.from(await download.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    const permissions = await Promise.all(
      files.value.map(
        async (f) =>
          ((await (await get(`/v1/files/${encodeURIComponent(f.id)}/permissions`)).json()) as { value: { permissions: Array<{ type: string; id: string }> } })
            .value.permissions,
      ),
    );
    const flat = permissions.flat();
    expect(flat).toContainEqual({ type: 'GROUP', id: '*', action: 'VIEW' });
    expect(flat.some((p) => p.type === 'USER')).toBe(true);
    expect(flat.some((p) => p.type === 'GROUP' && p.id !== '*')).toBe(true);

    const groups = (await (await get('/v1/groups')).json()) as { value: Array<{ id: string }> };
    const members = await Promise.all(
      groups.value.map(async (g) => ((await (await get(`/v1/groups/${encodeURIComponent(g.id)}/members`)).json()) as { value: Array<{ type: string }> }).value),
    );
    expect(members.flat().some((m) => m.type === 'GROUP')).toBe(true); // nested groups
    const users = (await (await get('/v1/users')).json()) as { value: Array<{ state: string }> };
    expect(users.value.map((u) => u.state)).toContain('Inactive');
    await get('/v1/files/permissions/metadata');

    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('serves HTTPS with the given certificate (and HSTS) when TLS_CERT_FILE and TLS_KEY_FILE are set', async () => {
    const pems = selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      days: 1,
      keySize: 2048,
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    fs.writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
    fs.writeFileSync(path.join(dir, 'key.pem'), pems.private);
    const child = run(['serve'], {
      PORT: '0',
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: 'tls-test-key-0123456789',
      DEMO_CONTENT: 'off',
      TLS_CERT_FILE: path.join(dir, 'cert.pem'),
      TLS_KEY_FILE: path.join(dir, 'key.pem'),
    });
    const [, port] = await waitFor(child, /listening on https:\/\/localhost:(\d+)\//);
    const res = await new Promise<{ status: number; hsts: string | undefined; fingerprint: string }>((resolve, reject) => {
      https
        .get(
          {
            host: '127.0.0.1',
            port: Number(port),
            path: '/v1/files',
            servername: 'localhost',
            ca: pems.cert,
            headers: { Authorization: 'Bearer tls-test-key-0123456789' },
          },
          (r) => {
            const fingerprint = (r.socket as import('node:tls').TLSSocket).getPeerCertificate().fingerprint256;
            r.resume();
            r.on('end', () => resolve({ status: r.statusCode ?? 0, hsts: r.headers['strict-transport-security'] as string | undefined, fingerprint }));
          },
        )
        .on('error', reject);
    });
    expect(res.status).toBe(200);
    expect(res.hsts).toMatch(/max-age=31536000/);
    expect(res.fingerprint).toBe(new crypto.X509Certificate(pems.cert).fingerprint256);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('on SIGTERM finishes a download in flight, then closes the database and exits 0', async () => {
    const { bytes, env } = await stageBigDownload(dir);
    const child = run(['serve'], env);
    const [, port] = await waitFor(child, /listening on http:\/\/localhost:(\d+)\//);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const body = await new Promise<Buffer>((resolve, reject) => {
      http.get(`http://127.0.0.1:${port}/v1/files/test%3Abig/download`, { headers: { Authorization: 'shutdown-key-0123456789' } }, (res) => {
        const chunks: Buffer[] = [];
        res.once('data', (first: Buffer) => {
          chunks.push(first);
          res.pause();
          child.kill('SIGTERM'); // mid-download
          setTimeout(() => res.resume(), 300);
          res.on('data', (c: Buffer) => chunks.push(c));
        });
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      });
    });
    expect(body.length).toBe(bytes.length);
    expect(body.equals(bytes)).toBe(true);
    expect(await exited).toBe(0);
  });

  it('on SIGTERM closes idle keep-alive connections at once, cuts a client that stopped reading after SHUTDOWN_GRACE_MS, and exits 0', async () => {
    const { env } = await stageBigDownload(dir);
    const child = run(['serve'], { ...env, SHUTDOWN_GRACE_MS: '500' });
    const [, port] = await waitFor(child, /listening on http:\/\/localhost:(\d+)\//);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const agent = new http.Agent({ keepAlive: true });
    const request = (p: string) =>
      new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: Number(port), path: p, agent, headers: { Authorization: 'shutdown-key-0123456789' } }, resolve).on('error', reject);
      });
    // An idle keep-alive connection (the gateway's keep-alive timeout is 65 s) ...
    const listed = await request('/v1/files');
    listed.resume();
    await new Promise((resolve) => listed.on('end', resolve));
    expect(listed.headers.connection).toBe('keep-alive');
    // ... and a download whose client stops reading after the first chunk.
    const stalled = await request('/v1/files/test%3Abig/download');
    await new Promise((resolve) => stalled.once('data', resolve));
    stalled.pause();

    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(400); // the stalled download had its grace period
    expect(took).toBeLessThan(5_000); // not the keep-alive timeout, not the last-resort exit
    const received = await readRest(stalled);
    expect(stalled.complete).toBe(false);
    expect(received).toBeLessThan(24 * 1024 * 1024);
    agent.destroy();
  });

  it('fails at start-up with a message naming a bad setting', async () => {
    const child = run(['serve'], { PORT: 'eighty', SQLITE_PATH: path.join(dir, 'gw.sqlite') });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/PORT="eighty"/);
  });
});
