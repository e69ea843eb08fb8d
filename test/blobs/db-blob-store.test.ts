import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { BLOB_CHUNK_BYTES, DbBlobStore } from '../../src/blobs/db-blob-store';
import type { ByteRange } from '../../src/blobs/blob-store';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const digest = (algorithm: string, bytes: Buffer): string => crypto.createHash(algorithm).update(bytes).digest('hex');

async function readBack(store: DbBlobStore, key: string, range?: ByteRange): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.createReadStream(key, range)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function inPieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i += 1) {
    const n = cuts[i % cuts.length] as number;
    pieces.push(bytes.subarray(at, at + n));
    at += n;
  }
  return pieces;
}

describe.each(databaseKinds)('DbBlobStore on %s', (kind) => {
  let t: TestDatabase;
  let store: DbBlobStore;
  const rows = async () => ({
    blobs: (await t.db('blobs').select('key', 'content_id')) as Array<{ key: string; content_id: string }>,
    chunks: (await t.db('blob_chunks').orderBy(['content_id', 'seq']).select('content_id', 'seq')) as Array<{ content_id: string; seq: number }>,
  });

  beforeEach(async () => {
    t = await createTestDatabase(kind);
    store = new DbBlobStore(t.db);
  });
  afterEach(() => t.destroy());

  it('stores any content in any chunking under its SHA-256, in chunks of BLOB_CHUNK_BYTES, and reads back the whole of it or any range byte for byte', async () => {
    const sizes = fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 2048 }),
      fc.integer({ min: BLOB_CHUNK_BYTES - 3, max: BLOB_CHUNK_BYTES + 3 }),
      fc.integer({ min: 1, max: 3 * BLOB_CHUNK_BYTES }),
    );
    await fc.assert(
      fc.asyncProperty(
        sizes,
        fc.array(fc.integer({ min: 1, max: 300_000 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (size, cuts, asBuffer, a, b) => {
          const bytes = crypto.randomBytes(size);
          const stored = await store.put(asBuffer ? bytes : Readable.from(inPieces(bytes, cuts)));
          expect(stored).toEqual({ key: digest('sha256', bytes), sha256: digest('sha256', bytes), sha1: digest('sha1', bytes), size });
          expect((await readBack(store, stored.key)).equals(bytes)).toBe(true);
          expect(await store.stat(stored.key)).toEqual({ size });
          const { blobs, chunks } = await rows();
          const mine = blobs.find((r) => r.key === stored.key);
          expect(chunks.filter((c) => c.content_id === mine?.content_id)).toHaveLength(Math.ceil(size / BLOB_CHUNK_BYTES));
          if (size > 0) {
            const [start, end] = [Math.floor(Math.min(a, b) * (size - 1)), Math.floor(Math.max(a, b) * (size - 1))];
            expect((await readBack(store, stored.key, { start, end })).equals(bytes.subarray(start, end + 1))).toBe(true);
          }
          await store.delete(stored.key);
        },
      ),
      { numRuns: 25 },
    );
    expect(await rows()).toEqual({ blobs: [], chunks: [] });
  });

  it('keeps one copy of the same content, also when several writes of it race', async () => {
    const small = Buffer.from('%PDF the same deck');
    const large = crypto.randomBytes(2 * BLOB_CHUNK_BYTES + 5);
    const stored = await Promise.all([small, large, small, large, small, large].map((bytes, i) => store.put(i % 2 ? Readable.from([bytes]) : bytes)));
    expect(new Set(stored.map((s) => s.key))).toEqual(new Set([digest('sha256', small), digest('sha256', large)]));
    await store.put(large);
    const { blobs, chunks } = await rows();
    expect(blobs).toHaveLength(2);
    // Only the chunks of the writes that won remain.
    expect(new Set(chunks.map((c) => c.content_id))).toEqual(new Set(blobs.map((b) => b.content_id)));
    expect(chunks).toHaveLength(1 + 3);
    expect((await readBack(store, digest('sha256', large))).equals(large)).toBe(true);
  });

  it.each([
    ['before the first chunk was full', 1024],
    ['after chunks were written', BLOB_CHUNK_BYTES * 2 + 10],
  ])('leaves nothing behind when the source fails %s', async (_when, before) => {
    async function* failing(): AsyncGenerator<Buffer> {
      yield crypto.randomBytes(before);
      throw new Error('connection reset by source');
    }
    await expect(store.put(Readable.from(failing()))).rejects.toThrow('connection reset by source');
    expect(await rows()).toEqual({ blobs: [], chunks: [] });
  });

  it('reads a blob by the chunk size it was stored with (a later change of the figure keeps older blobs readable)', async () => {
    const bytes = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');
    const key = digest('sha256', bytes);
    await t
      .db('blobs')
      .insert({ key, content_id: 'older', size: bytes.length, sha1: digest('sha1', bytes), chunk_bytes: 10, stored_at: '2026-01-01T00:00:00.000Z' });
    for (let seq = 0; seq * 10 < bytes.length; seq += 1) {
      await t.db('blob_chunks').insert({ content_id: 'older', seq, data: bytes.subarray(seq * 10, seq * 10 + 10), written_at: '2026-01-01T00:00:00.000Z' });
    }
    expect((await readBack(store, key)).equals(bytes)).toBe(true);
    for (const [start, end] of [
      [0, 9],
      [9, 10],
      [5, 33],
      [30, 35],
      [35, 35],
    ] as const) {
      expect((await readBack(store, key, { start, end })).toString()).toBe(bytes.subarray(start, end + 1).toString());
    }
  });

  it('deletes a blob with its chunks; a missing blob has no size and its stream fails; keys are checked', async () => {
    const stored = await store.put(crypto.randomBytes(BLOB_CHUNK_BYTES + 1));
    await store.delete(stored.key);
    await store.delete(stored.key);
    expect(await store.stat(stored.key)).toBeUndefined();
    expect(await rows()).toEqual({ blobs: [], chunks: [] });
    await expect(readBack(store, stored.key)).rejects.toThrow(/missing from the database blob store/);
    expect(() => store.createReadStream('../../etc/passwd')).toThrow(/Invalid blob key/);
    await expect(store.stat('ABC')).rejects.toThrow(/Invalid blob key/);
  });
});
