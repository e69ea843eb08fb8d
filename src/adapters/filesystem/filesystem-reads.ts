import { closeSync, constants as fsConstants, createReadStream, fstatSync, openSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import { text as readText } from 'node:stream/consumers';
import { SourceNotFoundError, SourcePermissionError } from '../source-error';
import { isInsideRoot } from './filesystem-mapping';

/**
 * Reading the files a walk found, safely: each read re-checks that it opens the very file the walk
 * found (or, when the file was replaced since, that its path still leads inside the root).
 */

/** What a read needs of a walked file: where the walk found it, and which file it was. */
export interface WalkedFile {
  /** The path as walked (under the root as configured). */
  absolutePath: string;
  /** Device and inode of the file the walk found (a link's target). */
  identity: { dev: number; ino: number };
}

/** Inline files up to this size are read synchronously (see `readWalkedFile`). */
const SYNC_READ_BYTES = 256 * 1024;

/**
 * A walked binary file's content: opened only when the engine asks for the bytes. A class rather
 * than a closure, so the worker thread can send what it needs to open the file (`filesystem-wire.ts`).
 */
export class WalkedBinaryContent {
  readonly kind = 'binary';
  constructor(
    readonly realRoot: string,
    readonly walked: WalkedFile,
    readonly version: string,
  ) {}

  open(): Promise<Readable | Buffer> {
    return openInsideRoot(this.realRoot, this.walked);
  }
}

/** Resolves a walked file's path again and checks that it still leads inside the root. */
function realpathInsideRoot(realRoot: string, entry: WalkedFile): string {
  let real: string;
  try {
    real = realpathSync.native(entry.absolutePath);
  } catch (err) {
    throw new SourceNotFoundError(`${entry.absolutePath}: gone before it could be read`, { cause: err });
  }
  if (!isInsideRoot(realRoot, real)) throw new SourcePermissionError(`${entry.absolutePath}: now leads out of the root; not read`);
  return real;
}

/**
 * Opens without blocking: a path swapped for a FIFO since the walk must fail the item, not wait
 * for a writer forever (the flag changes nothing for regular files).
 */
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

function openOrThrow(file: string, entry: WalkedFile): number {
  try {
    return openSync(file, OPEN_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new SourceNotFoundError(`${entry.absolutePath}: gone before it could be read`, { cause: err });
    throw new SourceNotFoundError(`${entry.absolutePath}: cannot be opened: ${(err as Error).message}`, { cause: err });
  }
}

/** Stats of an open file, closing it when they cannot be read. */
function statOpen(fd: number, entry: WalkedFile): Stats {
  try {
    return fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw new SourceNotFoundError(`${entry.absolutePath}: cannot be read: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Opens a walked file for reading (the caller closes the descriptor). The walk checked that the
 * path leads inside the root, but a folder or the file may have been swapped for a link since: so
 * the opened file must be the very one the walk found (same device and inode), which takes one
 * `fstat` instead of resolving every path component again. Only when it is not (the file was
 * replaced, say by an editor's save) is the path resolved and checked against the root again.
 */
export function openWalkedFile(realRoot: string, entry: WalkedFile): { fd: number; size: number } {
  const fd = openOrThrow(entry.absolutePath, entry);
  const stats = statOpen(fd, entry);
  if (stats.dev === entry.identity.dev && stats.ino === entry.identity.ino && stats.isFile()) return { fd, size: stats.size };
  closeSync(fd);
  const again = openOrThrow(realpathInsideRoot(realRoot, entry), entry);
  const now = statOpen(again, entry);
  if (now.isFile()) return { fd: again, size: now.size };
  closeSync(again);
  throw new SourceNotFoundError(`${entry.absolutePath}: is no longer a regular file; not read`);
}

/**
 * A walked file's text. Small files are read synchronously: on a local disk that takes
 * microseconds, while an asynchronous read costs several thread-pool round trips. A larger one
 * streams (the stream closes the descriptor, also when the run is cancelled mid-read).
 */
export async function readWalkedFile(realRoot: string, entry: WalkedFile, signal: AbortSignal): Promise<string> {
  const { fd, size } = openWalkedFile(realRoot, entry);
  if (size > SYNC_READ_BYTES) return readText(createReadStream('', { fd, signal }));
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** The content of a walked binary file, read when the engine asks for it. */
export async function openInsideRoot(realRoot: string, entry: WalkedFile): Promise<Readable | Buffer> {
  const { fd, size } = openWalkedFile(realRoot, entry);
  // A small file is read at once, into one Buffer (see `readWalkedFile`); anything larger streams.
  if (size > SYNC_READ_BYTES) return createReadStream('', { fd });
  try {
    return readFileSync(fd);
  } catch (err) {
    throw new SourceNotFoundError(`${entry.absolutePath}: cannot be read: ${(err as Error).message}`, { cause: err });
  } finally {
    closeSync(fd);
  }
}
