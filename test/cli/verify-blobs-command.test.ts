import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BlobStore } from '../../src/blobs/blob-store';
import { DbBlobStore } from '../../src/blobs/db-blob-store';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { S3BlobStore } from '../../src/blobs/s3-blob-store';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3Server, type TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';
import { createDb, type Db } from '../../src/staging/database/create-db';
import { runCli, summaryOf } from '../e2e/cli-process';
import { generateMixedTree } from '@content-gateway/kit/src/fixtures/mixed-tree';

/**
 * Issue 14 (7): `verify-blobs` through the front door (the real CLI as a child process, a
 * generated folder synced by the filesystem adapter): it lists the binary files whose content is
 * missing from the blob store or corrupt, exits 1 when there is any, and `--repair` makes the next
 * sync, an incremental one as scheduled, fetch them again from the source.
 */
jest.setTimeout(240_000);

interface BinaryRow {
  id: string;
  blob_key: string;
  sha256: string;
  modified_at: string;
}

describe.each(['directory', 'database', 's3'] as const)('content-gateway verify-blobs, blobs in the %s store', (store) => {
  let dir: string;
  let env: Record<string, string>;
  let db: Db;
  let root: string;
  let s3: TestS3Server;
  const s3Store = () =>
    new S3BlobStore(
      { bucket: s3.bucket, prefix: env.S3_PREFIX as string, region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials },
      db,
    );

  beforeAll(async () => {
    if (store === 's3') s3 = await startS3Server();
  });
  afterAll(async () => {
    if (store === 's3') await s3.close();
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-verify-'));
    root = path.join(dir, 'tree');
    fs.mkdirSync(root);
    generateMixedTree(root, { files: 60, skipped: 0 });
    env = { SQLITE_PATH: path.join(dir, 'data', 'gw.sqlite'), BLOB_DIR: path.join(dir, 'data', 'blobs'), BLOB_STORE: store, FILESYSTEM_ROOT: root };
    // Each test its own prefix in the bucket.
    if (store === 's3') env = { ...env, ...s3.env, S3_PREFIX: path.basename(dir) };
  });
  afterEach(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const binaries = async () =>
    (await db('files').where({ status: 'active' }).whereNotNull('blob_key').orderBy('id').select('id', 'blob_key', 'sha256', 'modified_at')) as BinaryRow[];
  const sync = async () => {
    const r = await runCli(['sync', 'filesystem'], env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    return summaryOf(r.stdout);
  };
  /** Replaces a blob's bytes with as many other bytes, as a bad disk or a botched restore would. */
  const corrupt = async (key: string) => {
    if (store === 's3') {
      const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials });
      const size = (await s3Store().stat(key))?.size ?? 0;
      const Key = `${env.S3_PREFIX}/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: crypto.randomBytes(size) }));
      client.destroy();
    } else if (store === 'directory') {
      const file = new FsBlobStore(env.BLOB_DIR as string).pathOf(key);
      fs.writeFileSync(file, crypto.randomBytes(fs.statSync(file).size));
    } else {
      const { content_id: contentId } = (await db('blobs').where({ key }).first('content_id')) as { content_id: string };
      const chunk = (await db('blob_chunks').where({ content_id: contentId, seq: 0 }).first('data')) as { data: Buffer };
      await db('blob_chunks')
        .where({ content_id: contentId, seq: 0 })
        .update({ data: crypto.randomBytes(chunk.data.length) });
    }
  };
  const remove = async (key: string) => {
    const blobs: BlobStore = store === 's3' ? s3Store() : store === 'directory' ? new FsBlobStore(env.BLOB_DIR as string) : new DbBlobStore(db);
    await blobs.delete(key);
    blobs.close?.();
  };

  it('lists missing and corrupt content, exits 1, and with --repair the next (incremental) sync fetches it again', async () => {
    expect((await sync()).mode).toBe('full');
    db = createDb({ sqlitePath: env.SQLITE_PATH as string });
    const files = await binaries();
    expect(files.length).toBeGreaterThanOrEqual(3);

    const [gone, damaged] = files as [BinaryRow, BinaryRow];
    await remove(gone.blob_key);
    await corrupt(damaged.blob_key);

    // Without a repair, the scheduled sync (incremental: nothing changed at the source) fixes nothing.
    expect(await sync()).toMatchObject({ mode: 'incremental', counts: { changed: 0 } });
    const found = await runCli(['verify-blobs'], env);
    expect(found.code).toBe(1);
    expect(found.stdout.split('\n').filter((l) => /^(missing|corrupt)/.test(l))).toEqual([
      `missing: ${JSON.stringify(gone.id)} (blob ${gone.blob_key}: not in the blob store)`,
      `corrupt: ${JSON.stringify(damaged.id)} (blob ${damaged.blob_key}: its SHA-256 is ${found.stdout.match(/its SHA-256 is ([0-9a-f]{64})/)?.[1] ?? '?'}, not the file's)`,
    ]);
    expect(found.stdout).toMatch(/: 1 missing, 1 corrupt\. Run with --repair to have the next sync of filesystem fetch them again\.\n/);
    // Missing content also comes back with a full sync of its source (corrupt content needs --repair).
    expect(found.stdout).toMatch(/\nMissing content is fetched again by a full sync of the source that owns it: content-gateway sync filesystem --full\n$/);

    const repaired = await runCli(['verify-blobs', '--repair'], env);
    expect(repaired.code).toBe(1); // found, so still non-zero: the content is back only after the sync
    expect(repaired.stdout).toMatch(
      /: 1 missing, 1 corrupt\. Repaired: the next sync of filesystem fetches 2 files again \(their checkpoints are cleared, so it runs full\)\.\n$/,
    );

    const resync = await sync();
    expect(resync).toMatchObject({ mode: 'full', counts: { changed: 2, added: 0, deleted: 0, failed: 0 } });
    const after = new Map((await binaries()).map((f) => [f.id, f]));
    for (const f of [gone, damaged]) {
      // The same bytes, read again from the source: the same key and checksum, and a new modified
      // time, so the platform downloads the file again (it may have cached the corrupt bytes).
      expect(after.get(f.id)).toMatchObject({ blob_key: f.blob_key, sha256: f.sha256 });
      expect(Date.parse(after.get(f.id)?.modified_at ?? '')).toBeGreaterThan(Date.parse(f.modified_at));
    }
    for (const f of files.slice(2)) expect(after.get(f.id)?.modified_at).toBe(f.modified_at);
    const clean = await runCli(['verify-blobs'], env);
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: '' });
    const where = {
      directory: `BLOB_DIR ${env.BLOB_DIR}`,
      database: 'the database (BLOB_STORE=database)',
      s3: `the S3 bucket ${env.S3_BUCKET} under ${env.S3_PREFIX}/ (BLOB_STORE=s3)`,
    }[store];
    expect(clean.stdout).toBe(
      `Checked ${files.length} binary files (${files.length} blobs, ${clean.stdout.match(/blobs, ([\d.]+ [KM]?B)\)/)?.[1] ?? '?'}) in ${where}: 0 missing, 0 corrupt.\n`,
    );
  });

  it('has --help, and refuses to repair while a sync holds its lock', async () => {
    const help = await runCli(['verify-blobs', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: content-gateway verify-blobs \[options\]/);
    expect(help.stdout).toMatch(/--repair/);
    await sync();
    db = createDb({ sqlitePath: env.SQLITE_PATH as string });
    const [first] = await binaries();
    await remove((first as BinaryRow).blob_key);
    await db('sync_locks').insert({ source: 'filesystem', owner: 'another process', expires_at: new Date(Date.now() + 60_000).toISOString() });
    const locked = await runCli(['verify-blobs', '--repair'], env);
    expect(locked.code).toBe(1);
    expect(locked.stdout).toContain("A sync of 'filesystem' is running");
    expect(
      (
        await db('files')
          .where({ id: (first as BinaryRow).id })
          .first('content_hash')
      ).content_hash,
    ).not.toBeNull();
  });
});

describe('content-gateway verify-blobs with a BLOB_DIR that is not the folder staging was synced with', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-verify-elsewhere-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the folder it checked, the commands that bring the content back (seed-demo for the demo) and the likely mix-up', async () => {
    const root = path.join(dir, 'tree');
    fs.mkdirSync(root);
    generateMixedTree(root, { files: 20, skipped: 0 });
    const synced = { SQLITE_PATH: path.join(dir, 'gw.sqlite'), BLOB_DIR: path.join(dir, 'blobs'), FILESYSTEM_ROOT: root };
    expect((await runCli(['sync', 'filesystem'], synced)).code).toBe(0);
    expect((await runCli(['seed-demo'], synced)).code).toBe(0);

    const elsewhere = path.join(dir, 'other-blobs');
    const r = await runCli(['verify-blobs'], { ...synced, BLOB_DIR: elsewhere });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: '' });
    const lines = r.stdout.trimEnd().split('\n');
    const summary = lines.findIndex((l) => l.startsWith('Checked '));
    expect(lines[summary]).toMatch(
      new RegExp(`^Checked (\\d+) binary files \\(\\d+ blobs, [^)]*\\) in BLOB_DIR ${elsewhere}: (\\d+) missing, 0 corrupt\\. Run with --repair`),
    );
    expect(lines.slice(summary + 1)).toEqual([
      'Missing content is fetched again by a full sync of the source that owns it: content-gateway sync filesystem --full; content-gateway seed-demo (the demo)',
      `All of the binary files' content is missing: BLOB_DIR (${elsewhere}) may not be the folder staging was synced with; the sync, seed-demo and the gateway must use the same one.`,
    ]);
  });
});
