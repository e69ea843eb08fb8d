import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore, ByteRange, StoredBlob } from './blob-store';

const KEY = /^[0-9a-f]{64}$/;
/** Blobs up to this size are collected in memory and written synchronously (see `put`). */
export const SMALL_BLOB_BYTES = 256 * 1024;

/**
 * Content-addressed blobs in a directory: `<root>/ab/cd/<sha256>`. Writes go to a temporary file
 * in `<root>/tmp` and are renamed into place, so a reader never sees half a blob and a crash
 * leaves only temporary files behind.
 */
export class FsBlobStore implements BlobStore {
  /** Folders known to exist: creating them again costs a system call per blob. */
  private readonly madeDirs = new Set<string>();

  constructor(private readonly root: string) {}

  private ensureDir(dir: string): void {
    if (this.madeDirs.has(dir)) return;
    fs.mkdirSync(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`Invalid blob key ${JSON.stringify(key)}`);
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  /**
   * Streams `source` into the store while hashing it. Content up to `SMALL_BLOB_BYTES` is
   * collected and written with synchronous calls (a local write of a few kilobytes takes
   * microseconds, while a write stream costs several thread-pool round trips); larger content is
   * written chunk by chunk as it arrives, so memory stays flat whatever the size.
   */
  async put(source: Readable | Buffer): Promise<StoredBlob> {
    const tmpDir = path.join(this.root, 'tmp');
    this.ensureDir(tmpDir);
    const tmp = path.join(tmpDir, `${process.pid}-${crypto.randomUUID()}`);
    const sha256 = crypto.createHash('sha256');
    const sha1 = crypto.createHash('sha1');
    let size = 0;
    let small: Buffer[] | undefined = [];
    let file: fs.promises.FileHandle | undefined;
    try {
      for await (const data of Buffer.isBuffer(source) ? [source] : source) {
        const chunk = Buffer.isBuffer(data) ? data : Buffer.from(data as string);
        sha256.update(chunk);
        sha1.update(chunk);
        size += chunk.length;
        if (small) {
          small.push(chunk);
          if (size <= SMALL_BLOB_BYTES) continue;
          file = await fs.promises.open(tmp, 'wx');
          for (const part of small) await file.write(part);
          small = undefined;
        } else {
          await file?.write(chunk);
        }
      }
      if (small) fs.writeFileSync(tmp, small.length === 1 ? (small[0] as Buffer) : Buffer.concat(small), { flag: 'wx' });
      await file?.close();
      file = undefined;
      const key = sha256.digest('hex');
      const target = this.pathOf(key);
      this.ensureDir(path.dirname(target));
      try {
        fs.renameSync(tmp, target);
      } catch (error) {
        // The folder was removed behind our back (a restore, a cleanup): make it again once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        this.madeDirs.clear();
        this.ensureDir(path.dirname(target));
        fs.renameSync(tmp, target);
      }
      return { key, size, sha256: key, sha1: sha1.digest('hex') };
    } catch (error) {
      await file?.close().catch(() => undefined);
      if (!Buffer.isBuffer(source)) source.destroy();
      fs.rmSync(tmp, { force: true });
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const s = await fs.promises.stat(this.pathOf(key));
      return { size: s.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  createReadStream(key: string, range?: ByteRange): Readable {
    return fs.createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }
}
