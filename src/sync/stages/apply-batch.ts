import type { SyncBatch } from '../../staging/write-path/sync-store';
import { assertLock, type RunContext } from '../run-context';

/**
 * Stage 4, apply: writes a decided batch in one transaction (the gateway sees all of it or none),
 * then deletes the blobs no row points at any more. A run that lost its lock writes nothing more.
 * Access lists are written as of the run's start: one an access-only run read later is kept.
 */
export async function applyBatch(
  ctx: Pick<RunContext, 'store' | 'blobs' | 'source' | 'runId' | 'lock' | 'accessAsOf'>,
  batch: SyncBatch,
  stamp: string,
): Promise<void> {
  assertLock(ctx);
  await releaseBlobs(ctx, await ctx.store.apply(batch, ctx.runId, stamp, ctx.accessAsOf));
}

/**
 * Deletes blobs no row points at any more, unless another source's sync is running: blobs are
 * shared by content, and that sync may be about to point a row at one. Those are then left in
 * the store, unreferenced, for `gc-blobs` (collect-blob-garbage.ts) to delete.
 */
export async function releaseBlobs(ctx: Pick<RunContext, 'store' | 'blobs' | 'source'>, keys: readonly string[]): Promise<void> {
  if (keys.length === 0 || (await ctx.store.otherSyncRunning(ctx.source))) return;
  await Promise.all(keys.map((key) => ctx.blobs.delete(key)));
}
