import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startS3Server, type TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';
import type { ByteRange } from '../../src/blobs/blob-store';
import { s3ClientConfig, S3BlobStore, UPLOAD_PART_BYTES } from '../../src/blobs/s3-blob-store';
import { SPOOL_IN_MEMORY_BYTES } from '../../src/blobs/spooled-content';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const digest = (algorithm: string, bytes: Buffer): string => crypto.createHash(algorithm).update(bytes).digest('hex');
const old = new Date('2026-01-01T00:00:00.000Z');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.each(databaseKinds)('S3BlobStore against a real S3-compatible server (s3rver), staging on %s', (kind) => {
  let s3: TestS3Server;
  let t: TestDatabase;
  let store: S3BlobStore;
  let spoolDir: string;
  let raw: S3Client;
  let prefix = 'gw/blobs';

  /** The object as the server holds it, read without the store: what every upload is checked against. */
  const serverCopy = async (key: string): Promise<Buffer> => {
    const object = await raw.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}` }));
    return readAll(object.Body as Readable);
  };
  const records = async () => (await t.db('object_blobs').orderBy('key').select('key', 'stored_at')) as Array<{ key: string; stored_at: string }>;
  const listed = async () => {
    const out: Array<{ key: string; storedAt: Date }> = [];
    for await (const blob of store.list()) out.push(blob);
    return out;
  };

  beforeAll(async () => {
    s3 = await startS3Server();
    raw = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials });
  });
  afterAll(async () => {
    raw.destroy();
    await s3.close();
  });
  beforeEach(async () => {
    t = await createTestDatabase(kind);
    spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 's3-spool-'));
    prefix = `gw-${crypto.randomBytes(4).toString('hex')}/blobs`;
    const options = { bucket: s3.bucket, prefix, region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials, spoolDir };
    store = new S3BlobStore(options, t.db);
  });
  afterEach(async () => {
    store.close();
    await t.destroy();
    fs.rmSync(spoolDir, { recursive: true, force: true });
  });

  it.each([
    ['empty', 0, 'buffer'],
    ['small, as a buffer', 3000, 'buffer'],
    ['small, streamed', 3000, 'stream'],
    ['spooled to a file', SPOOL_IN_MEMORY_BYTES + 1, 'stream'],
    ['uploaded in parts', UPLOAD_PART_BYTES + 12345, 'stream'],
  ] as const)(
    'stores %s content under <prefix>/ab/cd/<sha256>, the server holding exactly the bytes sent (size and SHA-256), readable whole and by range',
    async (_what, size, as) => {
      const bytes = crypto.randomBytes(size);
      const pieces = [bytes.subarray(0, 1000), bytes.subarray(1000, 70_000), bytes.subarray(70_000)];
      const stored = await store.put(as === 'buffer' ? bytes : Readable.from(pieces));
      expect(stored).toEqual({ key: digest('sha256', bytes), sha256: digest('sha256', bytes), sha1: digest('sha1', bytes), size });
      const held = await serverCopy(stored.key);
      expect({ size: held.length, sha256: digest('sha256', held) }).toEqual({ size, sha256: stored.sha256 });
      expect(await store.stat(stored.key)).toEqual({ size });
      const back = await readAll(store.createReadStream(stored.key));
      expect({ size: back.length, sha256: digest('sha256', back) }).toEqual({ size, sha256: stored.sha256 });
      if (size > 0) {
        const ranges: ByteRange[] = [
          { start: 0, end: 0 },
          { start: size - 1, end: size - 1 },
          { start: Math.floor(size / 3), end: Math.floor((2 * size) / 3) },
        ];
        for (const range of ranges)
          expect((await readAll(store.createReadStream(stored.key, range))).equals(bytes.subarray(range.start, range.end + 1))).toBe(true);
      }
      expect(fs.readdirSync(spoolDir)).toEqual([]);
    },
  );

  it('takes a blob seen present lately as present (one request per download), and fails the read of one another process deleted meanwhile', async () => {
    const stored = await store.put(Buffer.from('looked up by every download'));
    expect(await store.stat(stored.key)).toEqual({ size: stored.size });
    const other = new S3BlobStore(
      { bucket: s3.bucket, prefix, region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials },
      t.db,
    );
    await other.delete(stored.key);
    other.close();
    expect(await store.stat(stored.key)).toEqual({ size: stored.size });
    await expect(readAll(store.createReadStream(stored.key))).rejects.toThrow();
    await store.delete(stored.key);
    expect(await store.stat(stored.key)).toBeUndefined();
  });

  it("uploads with the client settings that avoid the aws-chunked trap: with the SDK's defaults this server stores a streamed upload longer than sent, without an error", async () => {
    const file = path.join(spoolDir, 'streamed.bin');
    fs.writeFileSync(file, crypto.randomBytes(300_000));
    const sizeStored = async (client: S3Client, Key: string): Promise<number | undefined> => {
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: fs.createReadStream(file), ContentLength: 300_000 }));
      const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key }));
      client.destroy();
      return head.ContentLength;
    };
    const where = { endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: s3.credentials };
    expect(await sizeStored(new S3Client(where), `${prefix}/sdk-defaults`)).toBeGreaterThan(300_000);
    const storeConfig = s3ClientConfig({ bucket: s3.bucket, prefix, ...where });
    expect(await sizeStored(new S3Client(storeConfig), `${prefix}/store-settings`)).toBe(300_000);
  });

  it('says a blob it does not hold is absent', async () => {
    expect(await store.stat(digest('sha256', Buffer.from('never stored')))).toBeUndefined();
  });

  it('keeps when a blob was last stored in staging, renewed by a put of content already in the bucket (not the object’s LastModified)', async () => {
    const bytes = Buffer.from('%PDF the same deck');
    const { key } = await store.put(bytes);
    const head = await raw.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: store.objectKey(key) }));
    await t.db('object_blobs').where({ key }).update({ stored_at: old.toISOString() });
    expect((await listed()).map((b) => b.storedAt)).toEqual([old]);
    const before = new Date();
    await store.put(Readable.from([bytes]));
    const [again] = await listed();
    expect(again?.storedAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    // Not written again: the object is the one first stored.
    const headAgain = await raw.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: store.objectKey(key) }));
    expect(headAgain.ETag).toBe(head.ETag);
    await store.delete(key, new Date(before.getTime() - 60_000));
    expect(await store.stat(key)).toEqual({ size: bytes.length });
  });

  it('deletes a blob (record and object) only when last stored before storedBefore, and unconditionally without it', async () => {
    const a = await store.put(Buffer.from('stored long ago'));
    const b = await store.put(Buffer.from('stored just now'));
    await t.db('object_blobs').where({ key: a.key }).update({ stored_at: old.toISOString() });
    const cutoff = new Date(Date.now() - 60_000);
    await store.delete(a.key, cutoff);
    await store.delete(b.key, cutoff);
    expect(await store.stat(a.key)).toBeUndefined();
    expect(await store.stat(b.key)).toEqual({ size: b.size });
    expect((await records()).map((r) => r.key)).toEqual([b.key]);
    await store.delete(b.key);
    expect(await store.stat(b.key)).toBeUndefined();
    expect(await records()).toEqual([]);
  });

  it('lists the blobs under its prefix only, recording one staging did not know as stored now', async () => {
    const mine = await store.put(Buffer.from('mine'));
    const foreign = crypto.randomBytes(100);
    const foreignKey = digest('sha256', foreign);
    await raw.send(new PutObjectCommand({ Bucket: s3.bucket, Key: store.objectKey(foreignKey), Body: foreign }));
    await raw.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `other/${foreignKey}`, Body: foreign }));
    await raw.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/notes.txt`, Body: 'not a blob' }));
    const before = Date.now() - 1000;
    const blobs = await listed();
    expect(blobs.map((b) => b.key).sort()).toEqual([mine.key, foreignKey].sort());
    expect(blobs.every((b) => b.storedAt.getTime() >= before)).toBe(true);
    expect((await records()).map((r) => r.key).sort()).toEqual([mine.key, foreignKey].sort());
    await store.delete(foreignKey);
  });

  it('leaves nothing behind when the source fails, and removes spool files a killed put left', async () => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield crypto.randomBytes(SPOOL_IN_MEMORY_BYTES + 10);
      throw new Error('connection reset by source');
    }
    await expect(store.put(Readable.from(failing()))).rejects.toThrow('connection reset by source');
    expect(fs.readdirSync(spoolDir)).toEqual([]);
    expect(await records()).toEqual([]);
    const left = path.join(spoolDir, '123-killed.spool');
    fs.writeFileSync(left, 'half a blob');
    fs.utimesSync(left, old, old);
    fs.writeFileSync(path.join(spoolDir, '124-running.spool'), 'being written');
    expect(await store.removeLeftovers(new Date(Date.now() - 60_000))).toBe(1);
    expect(fs.readdirSync(spoolDir)).toEqual(['124-running.spool']);
  });
});
