import { isIncremental } from '../../adapters/adapter';
import { stampOf, type RunContext, type RunTally } from '../run-context';
import type { SyncOptions } from '../sync-options';
import { releaseBlobs } from './apply-batch';

/** Why deleting `deletes` of `active` files is refused (the mass-deletion guard), or undefined. */
export function refuseDeletes(
  options: Pick<SyncOptions, 'allowMassDelete' | 'massDeleteMinFiles' | 'maxDeleteShare'>,
  deletes: number,
  active: number,
): string | undefined {
  if (options.allowMassDelete || active < options.massDeleteMinFiles || deletes / active <= options.maxDeleteShare) return undefined;
  return `The run would delete ${deletes} of ${active} active files (over ${Math.round(options.maxDeleteShare * 100)} %); nothing was deleted. If the source really lost them, run again with --allow-mass-delete.`;
}

/**
 * Stage 6, sweep (full runs that read everything): what the run did not see becomes tombstones,
 * inactive users and deleted groups, unless that is more than the mass-deletion guard allows (the
 * answer is then why, and nothing is deleted). Tombstones past their retention are purged, and the
 * run's last checkpoint becomes the source's, for the incremental runs that follow.
 */
export async function sweepUnseen(ctx: RunContext, tally: RunTally, lastCheckpoint: unknown): Promise<string | undefined> {
  const { store, source, runId, options } = ctx;
  const refused = refuseDeletes(options, await store.unseenActiveFileCount(source, runId), await store.activeFileCount(source));
  if (refused) {
    await store.clearSeen(runId);
    return refused;
  }
  const swept = await store.sweep(source, runId, stampOf(ctx));
  await releaseBlobs(ctx, swept.released);
  tally.counts.deleted += swept.files;
  tally.identities.deleted += swept.users + swept.groups;
  await store.purgeTombstones(source, new Date(ctx.now().getTime() - options.tombstoneRetentionMs).toISOString());
  await store.clearSeen(runId);
  if (lastCheckpoint !== undefined && isIncremental(ctx.adapter)) await ctx.checkpoints.save(source, lastCheckpoint, stampOf(ctx));
  return undefined;
}
