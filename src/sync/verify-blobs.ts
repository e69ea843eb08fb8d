import crypto from 'node:crypto';
import type { BlobStore } from '../blobs/blob-store';
import { CheckpointsRepository } from '../staging/repositories/checkpoints-repository';
import type { Db } from '../staging/database/create-db';
import { FilesRepository, type StoredContent } from '../staging/repositories/files-repository';
import { SyncRunningError } from './collect-blob-garbage';

/** What is wrong with a file's stored content: gone, or not the file's bytes. */
export type BlobProblem = 'missing' | 'corrupt';

export interface BlobFinding {
  fileId: string;
  source: string;
  blobKey: string;
  problem: BlobProblem;
  /** What was found, in words (`not in the blob store`, `N bytes, not the file's M`, ...). */
  detail: string;
}

export interface VerifyBlobsOptions {
  /** Make the next sync of each affected source fetch the affected files again. */
  repair: boolean;
  /** Each finding as it is found (a run keeps none of them, so memory stays flat). */
  onFinding?: (finding: BlobFinding) => void;
  now?: () => Date;
}

export interface VerifyBlobsSummary {
  /** Active binary files checked. */
  files: number;
  /** Distinct blobs read (files with the same content share one). */
  blobs: number;
  /** Bytes read and hashed. */
  bytes: number;
  missing: number;
  corrupt: number;
  /** Files whose content the next sync fetches again (0 without `repair`). */
  repaired: number;
  /** Sources with findings, in order of appearance. */
  sources: string[];
  /** Sources with missing content (a full sync stores it again; corrupt content needs a repair). */
  missingSources: string[];
}

/** Rows read per query. */
const PAGE = 500;
/**
 * Blobs whose verdict is remembered, for the files that share them (cleared when full: a file
 * whose blob was checked long ago is checked again, which costs time, never memory).
 */
const REMEMBERED = 10_000;

/** The SHA-256 and length of a stored blob, read as a stream: memory stays at about one chunk. */
async function digest(blobs: BlobStore, key: string): Promise<{ sha256: string; bytes: number }> {
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  for await (const chunk of blobs.createReadStream(key)) {
    const data = chunk as Buffer;
    hash.update(data);
    bytes += data.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** What is wrong with one blob, for a file that expects `sha256` and `size`; undefined when nothing is. */
async function check(blobs: BlobStore, file: StoredContent): Promise<{ problem: BlobProblem; detail: string; bytes: number } | undefined> {
  const stat = await blobs.stat(file.blob_key);
  if (!stat) return { problem: 'missing', detail: 'not in the blob store', bytes: 0 };
  const size = file.size === null ? undefined : Number(file.size);
  if (size !== undefined && stat.size !== size) return { problem: 'corrupt', detail: `${stat.size} bytes, not the file's ${size}`, bytes: 0 };
  let read: { sha256: string; bytes: number };
  try {
    read = await digest(blobs, file.blob_key);
  } catch (error) {
    return { problem: 'corrupt', detail: `unreadable: ${error instanceof Error ? error.message : String(error)}`, bytes: 0 };
  }
  // Content-addressed: the key is the SHA-256 of the bytes, and so is the file's own checksum.
  const expected = file.sha256 ?? file.blob_key;
  if (read.sha256 !== expected || read.sha256 !== file.blob_key)
    return { problem: 'corrupt', detail: `its SHA-256 is ${read.sha256}, not the file's`, bytes: read.bytes };
  return size === undefined || read.bytes === size
    ? undefined
    : { problem: 'corrupt', detail: `${read.bytes} bytes, not the file's ${size}`, bytes: read.bytes };
}

/**
 * Checks every active binary file's content in the blob store: present, of the file's size, and
 * with the file's SHA-256 (every blob is read whole, streamed). Reports each file whose content is
 * missing or corrupt. With `repair`, each such file is made to be fetched again by the next sync of
 * its source: a corrupt blob is deleted (the database store would otherwise keep a damaged copy
 * stored under the right key, and no download serves it meanwhile: they answer
 * CONTENT_UNAVAILABLE), the row's stored content is forgotten (`FilesRepository.forgetContent`),
 * and the source's checkpoint is cleared, so that sync runs full and sees the file even when the
 * source did not change it. The blob goes before the row: interrupted in between, the next run
 * finds the blob missing and repairs again. A repair refuses to run while a sync holds a lock.
 */
export async function verifyBlobs(db: Db, blobs: BlobStore, options: VerifyBlobsOptions): Promise<VerifyBlobsSummary> {
  if (options.repair) {
    const now = (options.now ?? (() => new Date()))();
    const running = (await db('sync_locks').where('expires_at', '>', now.toISOString()).select('source')) as Array<{ source: string }>;
    if (running.length) {
      throw new SyncRunningError(
        `A sync of ${running.map((r) => `'${r.source}'`).join(', ')} is running; repair when none is (it may be writing the rows being repaired).`,
      );
    }
  }
  const files = new FilesRepository(db);
  const summary: VerifyBlobsSummary = { files: 0, blobs: 0, bytes: 0, missing: 0, corrupt: 0, repaired: 0, sources: [], missingSources: [] };
  const verdicts = new Map<string, Awaited<ReturnType<typeof check>>>();
  let after = '';
  for (;;) {
    const page = await files.binaryFilesAfter(after, PAGE);
    const bad: string[] = [];
    for (const file of page) {
      summary.files += 1;
      let verdict = verdicts.get(file.blob_key);
      if (!verdicts.has(file.blob_key)) {
        verdict = await check(blobs, file);
        summary.blobs += 1;
        summary.bytes += verdict?.bytes ?? Number(file.size ?? 0);
        if (verdicts.size >= REMEMBERED) verdicts.clear();
        verdicts.set(file.blob_key, verdict);
      }
      if (!verdict) continue;
      summary[verdict.problem] += 1;
      if (!summary.sources.includes(file.source)) summary.sources.push(file.source);
      if (verdict.problem === 'missing' && !summary.missingSources.includes(file.source)) summary.missingSources.push(file.source);
      options.onFinding?.({ fileId: file.id, source: file.source, blobKey: file.blob_key, problem: verdict.problem, detail: verdict.detail });
      if (!options.repair) continue;
      // Deleting is idempotent: files sharing the blob delete it again, harmlessly.
      if (verdict.problem === 'corrupt') await blobs.delete(file.blob_key);
      bad.push(file.id);
    }
    if (bad.length) summary.repaired += await files.forgetContent(bad);
    const last = page.at(-1);
    if (!last || page.length < PAGE) break;
    after = last.id;
  }
  if (options.repair) {
    const checkpoints = new CheckpointsRepository(db);
    for (const source of summary.sources) await checkpoints.clear(source);
  }
  return summary;
}
