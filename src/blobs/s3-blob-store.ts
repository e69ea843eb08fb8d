import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Knex } from 'knex';
import { assertBlobKey, BLOB_KEY, type BlobStore, type ByteRange, type StoredBlob } from './blob-store';
import { RecentSizes } from './recent-sizes';
import { removeOldSpools, spoolContent } from './spooled-content';
import { removeStaleUploads } from './remove-stale-uploads';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix: a blob is `<prefix>/ab/cd/<sha256>`. */
  prefix: string;
  region: string;
  /** An S3-compatible server's URL; unset: Amazon S3. */
  endpoint?: string | undefined;
  forcePathStyle?: boolean;
  /** Unset: the AWS SDK's credential chain (environment, shared files, container or instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Where content larger than a few hundred KB is spooled while hashed (default: a folder in the OS's temporary one). */
  spoolDir?: string;
}

/**
 * How long a blob seen present is taken as present without asking the server again (a download
 * looks its blob up before reading it: without this, every download would be two requests to the
 * server). A blob deleted meanwhile by another process fails the read, answered as unavailable.
 */
export const STAT_CACHE_MS = 10_000;

/** Bytes of one part of a multipart upload (content larger than one part is uploaded in parts, four at a time). */
export const UPLOAD_PART_BYTES = 8 * 1024 * 1024;

const isNotFound = (error: unknown): boolean => error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404;

/** The client's settings: checksums only where an operation requires them (see the class comment). */
export function s3ClientConfig(options: S3BlobStoreOptions): S3ClientConfig {
  return {
    region: options.region,
    forcePathStyle: options.forcePathStyle === true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}

/**
 * Content-addressed blobs in an S3 bucket (`BLOB_STORE=s3`: Amazon S3 or an S3-compatible server
 * such as MinIO), through the AWS SDK: `<prefix>/ab/cd/<sha256>`. A put reads the content through
 * first, hashing it (in memory, or spooled to a temporary file when large), then records in staging
 * (`object_blobs`) that the blob was stored now, then uploads it under its final key unless the
 * bucket has it already; an object is therefore never written under a wrong name, nor half-way
 * visible (S3 makes an object visible once whole). Each upload is checked by size afterwards.
 *
 * When a blob was last stored comes from staging, never from the object's `LastModified`: a put of
 * content already in the bucket does not write it again, yet must spare it from a garbage
 * collection. Checksums are computed only where an operation requires them: with the SDK's
 * default (a CRC trailer on every upload, in `aws-chunked` encoding), an S3-compatible server
 * that does not decode the encoding stores the framing with the bytes, 43 bytes too many, silently.
 */
export class S3BlobStore implements BlobStore {
  readonly where: string;
  private readonly client: S3Client;
  private readonly spoolDir: string;
  private readonly seen = new RecentSizes(STAT_CACHE_MS, 10_000);

  constructor(
    private readonly options: S3BlobStoreOptions,
    private readonly db: Knex,
  ) {
    this.client = new S3Client(s3ClientConfig(options));
    this.spoolDir = options.spoolDir ?? path.join(os.tmpdir(), 'content-gateway-s3-spool');
    const server = options.endpoint ? new URL(options.endpoint).origin : `Amazon S3 ${options.region}`;
    this.where = `S3 bucket ${options.bucket} under ${options.prefix}/ at ${server} (BLOB_STORE=s3)`;
  }

  /** The object key of blob `key`. */
  objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.options.prefix}/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;
  }

  async put(source: Readable | Buffer): Promise<StoredBlob> {
    const spooled = await spoolContent(source, this.spoolDir);
    try {
      const { stored } = spooled;
      // Recorded before the bucket is asked: a garbage collection deciding now waits for this row (see `delete`).
      const storedAt = new Date().toISOString();
      await this.db('object_blobs').insert({ key: stored.key, stored_at: storedAt }).onConflict('key').merge(['stored_at']);
      if ((await this.head(stored.key))?.size === stored.size) return stored;
      const Key = this.objectKey(stored.key);
      const upload = new Upload({
        client: this.client,
        params: { Bucket: this.options.bucket, Key, Body: spooled.body(), ContentType: 'application/octet-stream' },
        partSize: UPLOAD_PART_BYTES,
        queueSize: 4,
      });
      await upload.done();
      const uploaded = await this.head(stored.key);
      if (uploaded?.size !== stored.size) {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key }));
        this.seen.delete(stored.key);
        throw new Error(`The S3 server stored ${uploaded?.size ?? 'no'} bytes for blob ${stored.key} of ${stored.size} bytes; the object was deleted`);
      }
      return stored;
    } finally {
      await spooled.dispose();
    }
  }

  /** The blob's size, asked of the server unless seen present in the last `STAT_CACHE_MS`. */
  async stat(key: string): Promise<{ size: number } | undefined> {
    const seen = this.seen.get(key);
    if (seen !== undefined) return { size: seen };
    return this.head(key);
  }

  /** The blob's size as the server says it now. */
  private async head(key: string): Promise<{ size: number } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      const size = head.ContentLength ?? 0;
      this.seen.set(key, size);
      return { size };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Streams the object (or a `Range` of it) as the server sends it: memory stays at a socket's buffers. */
  createReadStream(key: string, range?: ByteRange): Readable {
    const request = new GetObjectCommand({
      Bucket: this.options.bucket,
      Key: this.objectKey(key),
      ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
    });
    const client = this.client;
    async function* bytes(): AsyncGenerator<Buffer> {
      const { Body, ContentRange } = await client.send(request);
      if (!(Body instanceof Readable)) throw new Error(`The S3 client returned no stream for blob ${key}`);
      yield* range ? withinRange(Body, range, ContentRange) : Body;
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  /**
   * Every blob in the bucket under the prefix, with when staging recorded it last stored. An
   * object staging has no record of (stored for another staging, or before a restore) is recorded
   * as stored now: a garbage collection spares it for its grace, and deletes it next time if no
   * file points at it.
   */
  async *list(): AsyncIterable<{ key: string; storedAt: Date }> {
    const pages = paginateListObjectsV2({ client: this.client, pageSize: 1000 }, { Bucket: this.options.bucket, Prefix: `${this.options.prefix}/` });
    for await (const page of pages) {
      const keys = (page.Contents ?? [])
        .map((object) => path.posix.basename(object.Key ?? ''))
        .filter((k, i) => BLOB_KEY.test(k) && page.Contents?.[i]?.Key === this.objectKey(k));
      if (!keys.length) continue;
      const rows = (await this.db('object_blobs').whereIn('key', keys).select('key', 'stored_at')) as Array<{ key: string; stored_at: string }>;
      const known = new Map(rows.map((r) => [r.key, new Date(r.stored_at)]));
      const now = new Date();
      const unknown = keys.filter((k) => !known.has(k));
      if (unknown.length) {
        await this.db('object_blobs')
          .insert(unknown.map((k) => ({ key: k, stored_at: now.toISOString() })))
          .onConflict('key')
          .ignore();
      }
      for (const key of keys) yield { key, storedAt: known.get(key) ?? now };
    }
  }

  /** Spool files this host's puts left behind, and multipart uploads begun under the prefix and never finished. */
  async removeLeftovers(before: Date): Promise<number> {
    const spools = await removeOldSpools(this.spoolDir, before);
    return spools + (await removeStaleUploads(this.client, this.options.bucket, `${this.options.prefix}/`, before));
  }

  /**
   * Deletes the blob's record and its object in one transaction, the record first and only if it
   * is older than `storedBefore`: a put of the same content meanwhile renews the record (and then
   * keeps the blob) or, on Postgres, waits for this transaction and then finds the object gone
   * and uploads it again.
   */
  async delete(key: string, storedBefore?: Date): Promise<void> {
    const Key = this.objectKey(key);
    this.seen.delete(key);
    await this.db.transaction(async (trx) => {
      const record = trx('object_blobs').where({ key });
      if (storedBefore) record.where('stored_at', '<', storedBefore.toISOString());
      const deleted = Number(await record.delete());
      if (storedBefore && deleted === 0) return;
      await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key }));
    });
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}

/**
 * Exactly the bytes of `range` from a ranged GET's body, whatever part of the object the server
 * sent (`served`: its `Content-Range`; none when it sent the whole object): a server that widens
 * or ignores a range (s3rver answers `bytes=0-0` with the whole object) never makes a download
 * send other bytes than its `Content-Range` says.
 */
async function* withinRange(body: Readable, range: ByteRange, served: string | undefined): AsyncGenerator<Buffer> {
  let skip = range.start - Number(/^bytes (\d+)-/.exec(served ?? '')?.[1] ?? 0);
  if (skip < 0) throw new Error(`The S3 server sent ${served ?? 'the whole object'} for the range ${range.start}-${range.end}`);
  let left = range.end - range.start + 1;
  for await (const data of body) {
    let chunk = data as Buffer;
    if (skip > 0) {
      const skipped = Math.min(skip, chunk.length);
      chunk = chunk.subarray(skipped);
      skip -= skipped;
    }
    if (chunk.length === 0) continue;
    yield chunk.length > left ? chunk.subarray(0, left) : chunk;
    left -= Math.min(chunk.length, left);
    if (left === 0) {
      body.destroy();
      return;
    }
  }
}
