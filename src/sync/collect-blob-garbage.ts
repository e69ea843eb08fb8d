import type { BlobStore } from '../blobs/blob-store';
import type { Db } from '../staging/database/create-db';
import { SyncStore } from '../staging/write-path/sync-store';

export interface BlobGarbageOptions {
  /** Blobs stored (and leftovers written) this recently are kept: a sync may not have committed their rows yet. */
  graceMs: number;
  /** Count what would go, delete nothing. */
  dryRun: boolean;
  now?: () => Date;
}

export interface BlobGarbageSummary {
  /** Blobs in the store. */
  blobs: number;
  /** Blobs no file row points at, stored before the grace period: deleted (or, in a dry run, to delete). */
  unreferenced: number;
  /** Unreferenced blobs spared because they were stored within the grace period. */
  recent: number;
  /** Temporary files or orphan chunks of interrupted writes removed (0 in a dry run). */
  leftovers: number;
}

export class SyncRunningError extends Error {}

/**
 * Deletes blobs no file row points at any more. A sync normally deletes what it releases, but not
 * when another source's sync was running at the time (blobs are shared by content), nor when it was
 * killed between its commit and the deletion; and an interrupted write leaves temporary files or
 * chunks. Refuses to start while a sync holds a lock, and spares whatever was stored within the
 * grace period, also when it is stored again while the collection runs (a sync that started
 * meanwhile may be about to point a row at it).
 */
export async function collectBlobGarbage(db: Db, blobs: BlobStore, options: BlobGarbageOptions): Promise<BlobGarbageSummary> {
  const store = new SyncStore(db);
  const now = (options.now ?? (() => new Date()))();
  // A lease that expired belongs to a sync that died: it holds nothing back.
  const running = (await db('sync_locks').where('expires_at', '>', now.toISOString()).select('source')) as Array<{ source: string }>;
  if (running.length) {
    throw new SyncRunningError(
      `A sync of ${running.map((r) => `'${r.source}'`).join(', ')} is running; collect blob garbage when none is (its blobs may not have rows yet).`,
    );
  }
  const cutoff = new Date(now.getTime() - options.graceMs);
  const summary: BlobGarbageSummary = { blobs: 0, unreferenced: 0, recent: 0, leftovers: 0 };
  let batch: Array<{ key: string; storedAt: Date }> = [];
  const settle = async (): Promise<void> => {
    const stored = new Map(batch.map((b) => [b.key, b.storedAt]));
    batch = [];
    for (const key of await store.unreferenced([...stored.keys()])) {
      if ((stored.get(key) as Date) >= cutoff) {
        summary.recent += 1;
        continue;
      }
      summary.unreferenced += 1;
      // Only if still not stored again: a sync that started meanwhile may have put the same content.
      if (!options.dryRun) await blobs.delete(key, cutoff);
    }
  };
  for await (const blob of blobs.list()) {
    summary.blobs += 1;
    batch.push(blob);
    if (batch.length >= 500) await settle();
  }
  await settle();
  if (!options.dryRun) summary.leftovers = await blobs.removeLeftovers(cutoff);
  return summary;
}
