import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { FsBlobStore, SMALL_BLOB_BYTES } from '../../src/blobs/fs-blob-store';

const digest = (algorithm: string, bytes: Buffer): string => crypto.createHash(algorithm).update(bytes).digest('hex');

async function readBack(store: FsBlobStore, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.createReadStream(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every file under `dir`, relative. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('FsBlobStore', () => {
  let root: string;
  let store: FsBlobStore;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-blobs-'));
    store = new FsBlobStore(root);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('stores any content, small or larger than the in-memory limit and in any chunking, under its SHA-256, and reads it back byte for byte', async () => {
    const sizes = fc.oneof(
      fc.integer({ min: 0, max: 2048 }),
      fc.integer({ min: SMALL_BLOB_BYTES - 64, max: SMALL_BLOB_BYTES + 64 }),
      fc.integer({ min: 1, max: 3 * SMALL_BLOB_BYTES }),
    );
    await fc.assert(
      fc.asyncProperty(sizes, fc.array(fc.integer({ min: 1, max: 200_000 }), { minLength: 1, maxLength: 8 }), fc.boolean(), async (size, cuts, asBuffer) => {
        const bytes = crypto.randomBytes(size);
        const chunks: Buffer[] = [];
        for (let at = 0, i = 0; at < size; i += 1) {
          const n = cuts[i % cuts.length] as number;
          chunks.push(bytes.subarray(at, at + n));
          at += n;
        }
        const stored = await store.put(asBuffer ? bytes : Readable.from(chunks));
        expect(stored).toEqual({ key: digest('sha256', bytes), sha256: digest('sha256', bytes), sha1: digest('sha1', bytes), size });
        expect((await readBack(store, stored.key)).equals(bytes)).toBe(true);
        expect(await store.stat(stored.key)).toEqual({ size });
        expect(filesUnder(root).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps one copy of the same content', async () => {
    const bytes = Buffer.from('%PDF the same deck');
    const a = await store.put(Readable.from([bytes]));
    const b = await store.put(bytes);
    expect(b.key).toBe(a.key);
    expect(filesUnder(root)).toEqual([path.join(a.key.slice(0, 2), a.key)]);
  });

  it.each([
    ['before the in-memory limit', 1024],
    ['after the content went to disk', SMALL_BLOB_BYTES * 2],
  ])('leaves nothing behind when the source fails %s', async (_when, before) => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield crypto.randomBytes(before);
      throw new Error('connection reset by source');
    }
    await expect(store.put(Readable.from(failing()))).rejects.toThrow('connection reset by source');
    expect(filesUnder(root)).toEqual([]);
  });

  it('writes many blobs at once, the same content among them, each whole and once, with no temporary file left', async () => {
    const contents = Array.from({ length: 60 }, (_, i) => crypto.randomBytes(i % 3 === 0 ? SMALL_BLOB_BYTES + 10 : 500 + i));
    const all = [...contents, ...contents.slice(0, 20)];
    const stored = await Promise.all(all.map((bytes, i) => store.put(i % 2 ? bytes : Readable.from([bytes.subarray(0, 100), bytes.subarray(100)]))));
    for (const [i, blob] of stored.entries()) {
      const bytes = all[i] as Buffer;
      expect(blob.key).toBe(digest('sha256', bytes));
      expect((await readBack(store, blob.key)).equals(bytes)).toBe(true);
    }
    const files = filesUnder(root);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(new Set(files)).toEqual(new Set(contents.map((bytes) => path.join(digest('sha256', bytes).slice(0, 2), digest('sha256', bytes)))));
  });

  it('serves a blob an earlier version stored two folders deep, moving it to its current place on first look-up', async () => {
    const bytes = Buffer.from('%PDF written by an earlier version');
    const key = digest('sha256', bytes);
    fs.mkdirSync(path.join(root, key.slice(0, 2), key.slice(2, 4)), { recursive: true });
    fs.writeFileSync(path.join(root, key.slice(0, 2), key.slice(2, 4), key), bytes);
    const listed: string[] = [];
    for await (const blob of store.list()) listed.push(blob.key);
    expect(listed).toEqual([key]);
    expect(await store.stat(key)).toEqual({ size: bytes.length });
    expect((await readBack(store, key)).equals(bytes)).toBe(true);
    expect(filesUnder(root)).toEqual([path.join(key.slice(0, 2), key)]);
    expect(await store.stat(digest('sha256', Buffer.from('never stored')))).toBeUndefined();
    await store.delete(key);
    expect(filesUnder(root)).toEqual([]);
  });

  it.each([
    ['small', 3],
    ['streamed', SMALL_BLOB_BYTES * 2],
  ])('makes a removed blob folder again (%s content)', async (_kind, size) => {
    const bytes = crypto.randomBytes(size);
    const first = await store.put(bytes);
    fs.rmSync(path.join(root, first.key.slice(0, 2)), { recursive: true });
    const again = await store.put(Readable.from([bytes]));
    expect((await readBack(store, again.key)).equals(bytes)).toBe(true);
  });
});
