import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { StoredBlob } from './blob-store';

/** What `ContentDigest` gives for `bytes` held whole, in one-shot calls (for a few KB, a Hash object costs more than the digest). */
export function digestOf(bytes: Buffer): StoredBlob {
  const key = crypto.hash('sha256', bytes, 'hex');
  return { key, size: bytes.length, sha256: key, sha1: crypto.hash('sha1', bytes, 'hex') };
}

/**
 * Hashes content on its way into a blob store: SHA-256 (the blob's key and the download's
 * `Checksum-SHA256`) and SHA-1 (the contract's `sha1_hash`), and counts its bytes.
 */
export class ContentDigest {
  private readonly sha256 = crypto.createHash('sha256');
  private readonly sha1 = crypto.createHash('sha1');
  private size = 0;

  /** Bytes hashed so far. */
  get bytes(): number {
    return this.size;
  }

  /** The chunks of `source` as Buffers, each hashed as it passes. */
  async *through(source: Readable | Buffer): AsyncGenerator<Buffer> {
    for await (const data of Buffer.isBuffer(source) ? [source] : source) {
      const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as string);
      this.sha256.update(chunk);
      this.sha1.update(chunk);
      this.size += chunk.length;
      yield chunk;
    }
  }

  /** The blob's description, once every chunk went through. */
  finish(): StoredBlob {
    const key = this.sha256.digest('hex');
    return { key, size: this.size, sha256: key, sha1: this.sha1.digest('hex') };
  }
}
