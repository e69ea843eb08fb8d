import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { startS3Server, type TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';
import { freshGet } from '../helpers/fresh-get';
import { runCli, startCli, summaryOf, type CliProcess } from './cli-process';

/**
 * Issue 30 (1): two gateway replicas (real `serve` processes) on one Postgres schema and one
 * S3-compatible server (s3rver on loopback), each with a blob folder of its own that stays empty:
 * the content a sync (a third process) stored in the bucket downloads byte for byte from either,
 * both crawled at once.
 */

jest.setTimeout(300_000);

const pgUrl = process.env.TEST_DATABASE_URL;
const run = pgUrl ? describe : describe.skip;
if (!pgUrl) console.warn('[S3 replicas test] SKIPPED: needs TEST_DATABASE_URL (set in CI by .ci/run)');

const KEY = 's3-replicas-key-0123456789abcdef';
const sha256 = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');

interface FilesPage {
  value: Array<{ id: string; content: { download_path?: string } }>;
  '@odata.nextLink'?: string;
}

/** Every binary file a replica lists, page by page from `base`. */
async function listBinaries(base: string): Promise<Array<{ id: string; downloadPath: string }>> {
  const out: Array<{ id: string; downloadPath: string }> = [];
  for (let next: string | undefined = `${base}/v1/files?$top=20`; next;) {
    const res = await freshGet(next.replace(/^https?:\/\/[^/]+/, base), { Authorization: KEY });
    if (res.status !== 200) throw new Error(`GET ${next}: ${res.status} ${res.body.slice(0, 300)}`);
    const page = JSON.parse(res.body) as FilesPage;
    for (const f of page.value) if (f.content.download_path) out.push({ id: f.id, downloadPath: f.content.download_path });
    next = page['@odata.nextLink'];
  }
  return out;
}

run('two replicas on one Postgres and one S3-compatible server, no shared folder', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-s3-replicas-'));
  const root = path.join(dir, 'tree');
  const replicas: CliProcess[] = [];
  const bases: string[] = [];
  const blobDirs = [path.join(dir, 'blobs-a'), path.join(dir, 'blobs-b')];
  let s3: TestS3Server;
  let env: Record<string, string>;
  // Sizes around the stores' boundaries: in memory, spooled to a file, uploaded in parts.
  const sizes = [0, 1, 3000, 64 * 1024, 256 * 1024 + 1, 1024 * 1024, 9 * 1024 * 1024 + 7];
  const names = [...sizes.map((size, i) => `blob-${i}-${size}.pdf`), ...Array.from({ length: 40 }, (_, i) => `sheet-${i}.txt`)];

  beforeAll(async () => {
    s3 = await startS3Server();
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, '_directory.yaml'), 'users:\n  - { id: ana, email: ana@example.com, full_name: Ana, active: true }\ngroups: []\n');
    for (const [i, size] of sizes.entries()) fs.writeFileSync(path.join(root, `blob-${i}-${size}.pdf`), crypto.randomBytes(size));
    for (let i = 0; i < 40; i += 1) fs.writeFileSync(path.join(root, `sheet-${i}.txt`), `plain text of sheet ${i}\n`.repeat(20 + i * 50));
    env = { ...s3.env, DATABASE_URL: pgUrl as string, DATABASE_SCHEMA: schema, GATEWAY_API_KEY: KEY, FILESYSTEM_ROOT: root };
    const sync = await runCli(['sync', 'filesystem'], { ...env, BLOB_DIR: path.join(dir, 'blobs-sync') });
    expect(summaryOf(sync.stdout)).toMatchObject({ status: 'succeeded', counts: { added: names.length, failed: 0 } });
    for (const blobDir of blobDirs) {
      fs.mkdirSync(blobDir);
      replicas.push(startCli(['serve'], { ...env, BLOB_DIR: blobDir, PORT: '0', HOST: '127.0.0.1', WEB_CONCURRENCY: '1', DEMO_CONTENT: 'off' }));
    }
    for (const replica of replicas) {
      const line = await replica.waitForLine((l) => /listening on http:\/\/localhost:\d+\//.test(l), 'listening');
      bases.push(`http://127.0.0.1:${/localhost:(\d+)/.exec(line)?.[1]}`);
    }
  });
  afterAll(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('drop schema if exists ?? cascade', [schema]);
    await admin.destroy();
    await s3?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves every file with the right bytes from either replica, both crawled at once', async () => {
    const [a, b] = bases as [string, string];
    const crawl = async (base: string, other: string): Promise<number> => {
      const files = await listBinaries(base);
      expect(files.map((f) => f.id).sort()).toEqual(names.map((n) => `filesystem:${n}`).sort());
      for (const file of files) {
        const expected = fs.readFileSync(path.join(root, file.id.slice('filesystem:'.length)));
        for (const from of [base, other]) {
          const res = await freshGet(`${from}/v1/files${file.downloadPath}`, { Authorization: KEY });
          expect({ id: file.id, status: res.status, size: res.bytes.length, sha256: sha256(res.bytes) }).toEqual({
            id: file.id,
            status: 200,
            size: expected.length,
            sha256: sha256(expected),
          });
          expect(res.headers['checksum-sha256']).toBe(sha256(expected));
        }
      }
      return files.length;
    };
    expect(await Promise.all([crawl(a, b), crawl(b, a)])).toEqual([names.length, names.length]);
    // Neither replica wrote or read a blob folder.
    for (const blobDir of blobDirs) expect(fs.readdirSync(blobDir)).toEqual([]);
  });
});
