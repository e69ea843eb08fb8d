import type { Readable } from 'node:stream';

export interface StoredBlob {
  /** Content address: the lower-case hex SHA-256 of the bytes. */
  key: string;
  size: number;
  sha256: string;
  sha1: string;
}

export interface ByteRange {
  start: number;
  /** Inclusive, as in HTTP `Range`. */
  end: number;
}

/**
 * Where binary file content lives. Content-addressed: the key is the SHA-256 of the bytes, so a
 * blob is written once, never changes, and can be written before the metadata that points at it.
 */
export interface BlobStore {
  /** Which store this is, as the operator configured it (`BLOB_DIR /abs/path`): for logs, never for HTTP clients. */
  readonly where: string;
  /** Streams `source` in, hashing as it goes; the blob becomes visible only once complete. */
  put(source: Readable | Buffer): Promise<StoredBlob>;
  /** Size of a stored blob, or undefined when absent. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Streams a blob (or a byte range of it); memory stays flat whatever the size. */
  createReadStream(key: string, range?: ByteRange): Readable;
  /** Deletes a blob; with `storedBefore`, only if it was last stored before then (a garbage collection racing a sync's put). */
  delete(key: string, storedBefore?: Date): Promise<void>;
  /**
   * Every stored blob with when it was last stored (a put of content already there counts): what
   * a garbage collection compares with the rows, sparing blobs stored too recently for a sync to
   * have committed the row that points at them.
   */
  list(): AsyncIterable<{ key: string; storedAt: Date }>;
  /** Removes what writes interrupted before `before` left behind (temporary files, chunks no blob owns); returns how many. */
  removeLeftovers(before: Date): Promise<number>;
  /** Releases what the store holds open (the S3 store's connections); the database is closed by its owner. */
  close?(): void;
}

export const BLOB_KEY = /^[0-9a-f]{64}$/;

/** Throws unless `key` is a blob key (lower-case hex SHA-256): stores never build a path or query from anything else. */
export function assertBlobKey(key: string): void {
  if (!BLOB_KEY.test(key)) throw new Error(`Invalid blob key ${JSON.stringify(key)}`);
}
