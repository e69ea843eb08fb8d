import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { StoredBlob } from './blob-store';
import { ContentDigest, digestOf } from './content-digest';

/** Content up to this size is held in memory while it is hashed; larger content goes to a temporary file. */
export const SPOOL_IN_MEMORY_BYTES = 256 * 1024;

/** Content hashed whole before it goes anywhere: its digest, and its bytes in memory or in a temporary file. */
export interface SpooledContent {
  stored: StoredBlob;
  /** The bytes again, from the start, as often as asked. */
  body(): Buffer | Readable;
  /** Removes the temporary file, if any. */
  dispose(): Promise<void>;
}

/** The temporary file name a spool gets in `dir` (`*.spool`, named by the process that wrote it). */
const spoolName = (dir: string): string => path.join(dir, `${process.pid}-${crypto.randomUUID()}.spool`);

/**
 * Reads `source` through, hashing it, into memory (up to `SPOOL_IN_MEMORY_BYTES`) or a temporary
 * file in `dir` (made when needed), so a store that names what it writes by its SHA-256 knows the
 * name before it writes. A failure removes the file and destroys the source.
 */
export async function spoolContent(source: Readable | Buffer, dir: string): Promise<SpooledContent> {
  if (Buffer.isBuffer(source) && source.length <= SPOOL_IN_MEMORY_BYTES) return inMemory(source, digestOf(source));
  const digest = new ContentDigest();
  let held: Buffer[] | undefined = [];
  let file: fs.promises.FileHandle | undefined;
  let name: string | undefined;
  try {
    for await (const chunk of digest.through(source)) {
      if (!held) {
        await file?.write(chunk);
        continue;
      }
      held.push(chunk);
      if (digest.bytes <= SPOOL_IN_MEMORY_BYTES) continue;
      await fs.promises.mkdir(dir, { recursive: true });
      name = spoolName(dir);
      file = await fs.promises.open(name, 'wx');
      for (const part of held) await file.write(part);
      held = undefined;
    }
    await file?.close();
    file = undefined;
    const stored = digest.finish();
    if (held) return inMemory(Buffer.concat(held), stored);
    const spooled = name as string;
    return { stored, body: () => fs.createReadStream(spooled), dispose: () => fs.promises.rm(spooled, { force: true }) };
  } catch (error) {
    await file?.close().catch(() => undefined);
    if (!Buffer.isBuffer(source)) source.destroy();
    if (name) await fs.promises.rm(name, { force: true });
    throw error;
  }
}

function inMemory(bytes: Buffer, stored: StoredBlob): SpooledContent {
  return { stored, body: () => bytes, dispose: async () => undefined };
}

/** Removes spool files in `dir` last written before `before` (left by a process killed mid-write); returns how many. */
export async function removeOldSpools(dir: string, before: Date): Promise<number> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names.filter((n) => n.endsWith('.spool'))) {
    const file = path.join(dir, name);
    const stat = await fs.promises.stat(file).catch(() => undefined);
    if (stat && stat.mtime < before) {
      await fs.promises.rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}
