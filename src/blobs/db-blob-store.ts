import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { assertBlobKey, type BlobStore, type ByteRange, type StoredBlob } from './blob-store';
import { ContentDigest } from './content-digest';

/**
 * Bytes a chunk row holds (recorded per blob, so a later change of this figure still reads older
 * blobs right): a download holds about one chunk per stream, whatever the file's size.
 */
export const BLOB_CHUNK_BYTES = 64 * 1024;

/**
 * Content-addressed blobs in the staging database (`BLOB_STORE=database`), for a gateway and a
 * sync that share a database but no folder. A blob is a `blobs` row named by its SHA-256 and its
 * bytes are `blob_chunks` rows of `BLOB_CHUNK_BYTES`. A write streams its chunks under an id of
 * its own and makes the blob visible in one transaction at the end (the last chunk and the `blobs`
 * row together), so a reader never sees half a blob; when the same content was stored meanwhile,
 * the write drops its own chunks. A write that fails deletes its chunks; one killed mid-way leaves
 * them, unreferenced (as the directory store leaves its temporary files).
 */
export class DbBlobStore implements BlobStore {
  /** `db`: the staging database (its `blobs` and `blob_chunks` tables come with the migrations). */
  readonly where = 'the staging database (BLOB_STORE=database)';

  constructor(private readonly db: Knex) {}

  async put(source: Readable | Buffer): Promise<StoredBlob> {
    const contentId = crypto.randomUUID();
    const writtenAt = new Date().toISOString();
    const digest = new ContentDigest();
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const writeChunk = async (conn: Knex | Knex.Transaction, data: Buffer): Promise<void> => {
      await conn('blob_chunks').insert({ content_id: contentId, seq, data, written_at: writtenAt });
      seq += 1;
    };
    try {
      for await (const chunk of digest.through(source)) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        while (pendingBytes >= BLOB_CHUNK_BYTES) {
          const all = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
          await writeChunk(this.db, all.subarray(0, BLOB_CHUNK_BYTES));
          const rest = all.subarray(BLOB_CHUNK_BYTES);
          pending = rest.length ? [rest] : [];
          pendingBytes = rest.length;
        }
      }
      const stored = digest.finish();
      const { key, size } = stored;
      const last = pendingBytes ? Buffer.concat(pending) : undefined;
      await this.db.transaction(async (trx) => {
        if (!(await trx('blobs').where({ key }).first('key'))) {
          if (last) await writeChunk(trx, last);
          await trx('blobs')
            .insert({ key, content_id: contentId, size, sha1: stored.sha1, chunk_bytes: BLOB_CHUNK_BYTES, stored_at: writtenAt })
            .onConflict('key')
            .ignore();
          const winner = (await trx('blobs').where({ key }).first('content_id')) as { content_id: string } | undefined;
          if (winner?.content_id === contentId) return;
        }
        // Already stored (before this write, or by another one that committed first): keep that
        // copy, renewed, so a garbage collection running now spares it until the row that
        // points at it is committed.
        await trx('blobs').where({ key }).update({ stored_at: writtenAt });
        if (seq > 0) await trx('blob_chunks').where({ content_id: contentId }).delete();
      });
      return stored;
    } catch (error) {
      if (!Buffer.isBuffer(source)) source.destroy();
      if (seq > 0) await this.db('blob_chunks').where({ content_id: contentId }).delete();
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    assertBlobKey(key);
    const row = (await this.db('blobs').where({ key }).first('size')) as { size: number | string } | undefined;
    return row ? { size: Number(row.size) } : undefined;
  }

  /** Reads chunk after chunk as the consumer asks for them: memory stays at about one chunk. */
  createReadStream(key: string, range?: ByteRange): Readable {
    assertBlobKey(key);
    const db = this.db;
    async function* chunks(): AsyncGenerator<Buffer> {
      const blob = (await db('blobs').where({ key }).first('content_id', 'size', 'chunk_bytes')) as
        { content_id: string; size: number | string; chunk_bytes: number } | undefined;
      if (!blob) throw new Error(`Blob ${key} is missing from the database blob store`);
      const size = Number(blob.size);
      const chunkBytes = Number(blob.chunk_bytes);
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? size - 1, size - 1);
      for (let seq = Math.floor(start / chunkBytes); seq * chunkBytes <= end; seq += 1) {
        const row = (await db('blob_chunks').where({ content_id: blob.content_id, seq }).first('data')) as { data: Buffer } | undefined;
        if (!row) throw new Error(`Blob ${key} is missing its chunk ${seq}`);
        const offset = seq * chunkBytes;
        yield row.data.subarray(Math.max(start - offset, 0), Math.min(end - offset + 1, row.data.length));
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  async *list(): AsyncIterable<{ key: string; storedAt: Date }> {
    let after = '';
    for (;;) {
      const rows = (await this.db('blobs').where('key', '>', after).orderBy('key').limit(1000).select('key', 'stored_at')) as Array<{
        key: string;
        stored_at: string;
      }>;
      for (const row of rows) yield { key: row.key, storedAt: new Date(row.stored_at) };
      const last = rows.at(-1);
      if (!last || rows.length < 1000) return;
      after = last.key;
    }
  }

  async removeLeftovers(before: Date): Promise<number> {
    const owned = this.db('blobs').select('content_id');
    return Number(await this.db('blob_chunks').where('written_at', '<', before.toISOString()).whereNotIn('content_id', owned).delete());
  }

  async delete(key: string, storedBefore?: Date): Promise<void> {
    assertBlobKey(key);
    await this.db.transaction(async (trx) => {
      const blob = trx('blobs').where({ key });
      if (storedBefore) blob.where('stored_at', '<', storedBefore.toISOString());
      const found = (await blob.first('content_id')) as { content_id: string } | undefined;
      if (!found) return;
      await trx('blobs').where({ key, content_id: found.content_id }).delete();
      await trx('blob_chunks').where({ content_id: found.content_id }).delete();
    });
  }
}
