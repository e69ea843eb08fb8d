import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { assertBlobKey, BLOB_KEY, type BlobStore, type ByteRange, type StoredBlob } from './blob-store';
import { ContentDigest, digestOf } from './content-digest';

/** Blobs up to this size are collected in memory and written in one call (see `put`). */
export const SMALL_BLOB_BYTES = 256 * 1024;

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';
/** A fan-out folder's name: the first two hex digits of its blobs' keys. */
const FAN_OUT = /^[0-9a-f]{2}$/;
/** Fan-out folders listed at once by `list` (each folder's files are `stat`ed in parallel). */
const LIST_FOLDERS = 8;

/**
 * Content-addressed blobs in a directory: `<root>/ab/<sha256>`, one level of 256 folders as git
 * keeps its objects (a folder costs a system call to make, and ext4 indexes large folders). Writes
 * go to a temporary file and are renamed into place, so a reader never sees half a blob and a
 * crash leaves only temporary files behind (`*.tmp`, in `<root>/tmp` or beside the blob).
 *
 * Small blobs (most documents) are written with synchronous calls, as the filesystem adapter reads
 * small files: through libuv's thread pool a write and its rename take five round trips, each
 * waiting for the event loop, which the sync engine keeps busy. Measured on the development VM,
 * 1,449 blobs of 3 KB: 55 ms synchronously against 62-200 ms through the pool on a quiet disk, and
 * 717 ms against 992 ms right after a mass deletion, when ext4 takes 1 ms to create a file (the
 * creations do not overlap in the kernel either way). Within a full sync, the engine waited 210-320
 * ms for pooled writes and spends about 115 ms on synchronous ones. Larger content streams through
 * the pool, chunk by chunk, so memory stays flat.
 */
export class FsBlobStore implements BlobStore {
  /** Folders known to exist: making them again costs a system call per blob. */
  private readonly madeDirs = new Set<string>();

  readonly where: string;

  constructor(private readonly root: string) {
    this.where = `BLOB_DIR ${path.resolve(root)}`;
  }

  /**
   * Runs `write` in `dir`, making the folder first (synchronously: once a folder, a single system
   * call); once more if the folder was removed behind our back (a restore, a cleanup).
   */
  private async inDir<T>(dir: string, write: () => T | Promise<T>): Promise<T> {
    const made = () => {
      if (this.madeDirs.has(dir)) return;
      fs.mkdirSync(dir, { recursive: true });
      this.madeDirs.add(dir);
    };
    made();
    try {
      return await write();
    } catch (error) {
      if (!isMissing(error)) throw error;
      this.madeDirs.clear();
      made();
      return write();
    }
  }

  /** The file that holds blob `key` (tools and benchmarks read it directly). */
  pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, key.slice(0, 2), key);
  }

  private tmpName(): string {
    return `${process.pid}-${crypto.randomUUID()}.tmp`;
  }

  /**
   * Stores `source` under its SHA-256. Content up to `SMALL_BLOB_BYTES` (a Buffer, or a stream
   * collected while hashed) is written beside its final place and renamed there synchronously, its
   * key known by then; larger content is written chunk by chunk to `<root>/tmp` as it arrives, so
   * memory stays flat whatever the size.
   */
  async put(source: Readable | Buffer): Promise<StoredBlob> {
    if (Buffer.isBuffer(source) && source.length <= SMALL_BLOB_BYTES) return this.putSmall(source, digestOf(source));
    const digest = new ContentDigest();
    let small: Buffer[] | undefined = [];
    let file: fs.promises.FileHandle | undefined;
    let tmp: string | undefined;
    try {
      for await (const chunk of digest.through(source)) {
        if (small) {
          small.push(chunk);
          if (digest.bytes <= SMALL_BLOB_BYTES) continue;
          const tmpDir = path.join(this.root, 'tmp');
          const name = path.join(tmpDir, this.tmpName());
          file = await this.inDir(tmpDir, () => fs.promises.open(name, 'wx'));
          tmp = name;
          for (const part of small) await file.write(part);
          small = undefined;
        } else {
          await file?.write(chunk);
        }
      }
      await file?.close();
      file = undefined;
      const stored = digest.finish();
      if (small) return await this.putSmall(small.length === 1 ? (small[0] as Buffer) : Buffer.concat(small), stored);
      const target = this.pathOf(stored.key);
      const from = tmp as string;
      await this.inDir(path.dirname(target), () => fs.promises.rename(from, target));
      tmp = undefined;
      return stored;
    } catch (error) {
      await file?.close().catch(() => undefined);
      if (!Buffer.isBuffer(source)) source.destroy();
      if (tmp) fs.rmSync(tmp, { force: true });
      throw error;
    }
  }

  /** Writes small content beside its final place and renames it there, synchronously (see the class comment). */
  private async putSmall(bytes: Buffer, stored: StoredBlob): Promise<StoredBlob> {
    const target = this.pathOf(stored.key);
    const dir = path.dirname(target);
    const name = path.join(dir, this.tmpName());
    try {
      await this.inDir(dir, () => fs.writeFileSync(name, bytes, { flag: 'wx' }));
      fs.renameSync(name, target);
    } catch (error) {
      fs.rmSync(name, { force: true });
      throw error;
    }
    return stored;
  }

  /**
   * Where earlier versions kept a blob (`<root>/ab/cd/<sha256>`). `stat` moves such a blob to
   * its current place the first time it is looked up, so a store written by an earlier version keeps
   * serving its downloads (the download handler looks a blob up before reading it).
   */
  private legacyPathOf(key: string): string {
    return path.join(this.root, key.slice(0, 2), key.slice(2, 4), key);
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    const file = this.pathOf(key);
    try {
      return { size: (await fs.promises.stat(file)).size };
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    try {
      await fs.promises.rename(this.legacyPathOf(key), file);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
    return this.stat(key);
  }

  createReadStream(key: string, range?: ByteRange): Readable {
    return fs.createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
  }

  /**
   * Blobs in the fan-out folders (and in the older two-level layout), with their files' modification
   * times: a few folders at a time, their files' `stat`s in parallel (one after another, 1,000 blobs
   * took ~100 ms, most of the console's Blobs page: kit/bench/console-pages.ts).
   */
  async *list(): AsyncIterable<{ key: string; storedAt: Date }> {
    const dirs = await this.fanOut(this.root);
    for (let i = 0; i < dirs.length; i += LIST_FOLDERS) {
      for (const found of await Promise.all(dirs.slice(i, i + LIST_FOLDERS).map((dir) => this.blobsIn(dir)))) yield* found;
    }
  }

  /** The blobs of one fan-out folder (and of the older layout's folders inside it). */
  private async blobsIn(dir: string): Promise<Array<{ key: string; storedAt: Date }>> {
    const files: Array<[key: string, file: string]> = [];
    for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory() && FAN_OUT.test(entry.name)) {
        for (const legacy of await fs.promises.readdir(file)) if (BLOB_KEY.test(legacy)) files.push([legacy, path.join(file, legacy)]);
      } else if (entry.isFile() && BLOB_KEY.test(entry.name)) {
        files.push([entry.name, file]);
      }
    }
    return Promise.all(files.map(async ([key, file]) => ({ key, storedAt: await this.mtime(file) })));
  }

  /** Temporary files (`*.tmp`, in `tmp/` and beside blobs) last written before `before`. */
  async removeLeftovers(before: Date): Promise<number> {
    let removed = 0;
    for (const dir of [path.join(this.root, 'tmp'), ...(await this.fanOut(this.root))]) {
      let names: string[];
      try {
        names = await fs.promises.readdir(dir);
      } catch (error) {
        if (isMissing(error)) continue;
        throw error;
      }
      for (const name of names.filter((n) => n.endsWith('.tmp'))) {
        const file = path.join(dir, name);
        if ((await this.mtime(file)) < before) {
          await fs.promises.rm(file, { force: true });
          removed += 1;
        }
      }
    }
    return removed;
  }

  /** The two-hex-digit folders under `dir`. */
  private async fanOut(dir: string): Promise<string[]> {
    try {
      return (await fs.promises.readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isDirectory() && FAN_OUT.test(e.name))
        .map((e) => path.join(dir, e.name));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  /** A file's modification time; a file gone meanwhile counts as just written (nothing to collect). */
  private async mtime(file: string): Promise<Date> {
    try {
      return (await fs.promises.stat(file)).mtime;
    } catch (error) {
      if (isMissing(error)) return new Date();
      throw error;
    }
  }

  async delete(key: string, storedBefore?: Date): Promise<void> {
    for (const file of [this.pathOf(key), this.legacyPathOf(key)]) {
      if (storedBefore && (await this.mtime(file)) >= storedBefore) continue;
      await fs.promises.rm(file, { force: true });
    }
  }
}
