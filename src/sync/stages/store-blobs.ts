import type { FileRecord } from '../../adapters/adapter';
import type { BlobStore } from '../../blobs/blob-store';
import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type { FileState } from '../../staging/write-path/sync-store';
import { decideFile, type FileDecision, type StagedBodyReader } from '../record-rows';
import { RunCancelled } from '../run-context';

/**
 * Binary files whose content is read and stored at once within a batch: downloads from a source
 * (and large blobs, which stream through libuv's thread pool) overlap instead of waiting in turn.
 * Small blobs are held in memory while written: at most this many times `SMALL_BLOB_BYTES`.
 */
export const BLOB_WRITES = 32;

/** What became of one file: its decision, or why there is none. */
export interface FileOutcome {
  id: string;
  decision?: FileDecision;
  error?: Error;
}

/**
 * Stage 3, store blobs: decides every file of a batch at once. Inline content is decided on the
 * spot (every lazy body the batch needs is asked for in the same tick, so an adapter can read them
 * in one query), while binary content streams into the blob store, `BLOB_WRITES` files at a time,
 * before any row points at it. Outcomes come out in the batch's order, so what consumes them behaves as
 * if the files were decided in turn; once it stops (cancelled, or over the error budget), files
 * not yet started are read and stored no more.
 */
export async function* storeBlobs(
  source: string,
  files: ReadonlyMap<string, FileRecord>,
  states: ReadonlyMap<string, FileState>,
  blobs: BlobStore,
  stamp: string,
  stagedBody?: StagedBodyReader,
): AsyncGenerator<FileOutcome> {
  const blobWrites = new ConcurrencyPool(BLOB_WRITES);
  let abandoned = false;
  const outcomes = [...files].map(async ([id, record]): Promise<FileOutcome> => {
    try {
      const decide = async () => {
        if (abandoned) throw new RunCancelled();
        return decideFile(source, record, states.get(id), blobs, stamp, stagedBody);
      };
      return { id, decision: await (record.content.kind === 'binary' ? blobWrites.run(decide) : decide()) };
    } catch (error) {
      return { id, error: error as Error };
    }
  });
  try {
    for (const outcome of outcomes) yield await outcome;
  } finally {
    abandoned = true;
  }
}
