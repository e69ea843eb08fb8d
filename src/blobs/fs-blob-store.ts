import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore, ByteRange, StoredBlob } from './blob-store';

const KEY = /^[0-9a-f]{64}$/;

/**
 * Content-addressed blobs in a directory: `<root>/ab/cd/<sha256>`. Writes go to a temporary file
 * in `<root>/tmp` and are renamed into place, so a reader never sees half a blob and a crash
 * leaves only temporary files behind.
 */
export class FsBlobStore implements BlobStore {
  /** Folders known to exist: creating them again costs a system call per blob. */
  private readonly madeDirs = new Set<string>();

  constructor(private readonly root: string) {}

  private async ensureDir(dir: string): Promise<void> {
    if (this.madeDirs.has(dir)) return;
    await fs.promises.mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }

  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`Invalid blob key ${JSON.stringify(key)}`);
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async put(source: Readable | Buffer): Promise<StoredBlob> {
    const tmpDir = path.join(this.root, 'tmp');
    await this.ensureDir(tmpDir);
    const tmp = path.join(tmpDir, `${process.pid}-${crypto.randomUUID()}`);
    const sha256 = crypto.createHash('sha256');
    const sha1 = crypto.createHash('sha1');
    let size = 0;
    const hasher = new Transform({
      transform(chunk: Buffer, _enc, done) {
        sha256.update(chunk);
        sha1.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(Buffer.isBuffer(source) ? Readable.from([source]) : source, hasher, fs.createWriteStream(tmp, { flags: 'wx' }));
      const key = sha256.digest('hex');
      const target = this.pathOf(key);
      await this.ensureDir(path.dirname(target));
      try {
        await fs.promises.rename(tmp, target);
      } catch (error) {
        // The folder was removed behind our back (a restore, a cleanup): make it again once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        this.madeDirs.clear();
        await this.ensureDir(path.dirname(target));
        await fs.promises.rename(tmp, target);
      }
      return { key, size, sha256: key, sha1: sha1.digest('hex') };
    } catch (error) {
      await fs.promises.rm(tmp, { force: true });
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
