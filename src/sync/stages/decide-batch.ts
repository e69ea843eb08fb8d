import { isSourceError } from '../../adapters/source-error';
import type { SyncBatch } from '../../staging/write-path/sync-store';
import { decideGroup, decideNarrowedAccess, decideNarrowedMembers, decideUser } from '../record-rows';
import { RunCancelled, type RunContext, type RunTally } from '../run-context';
import { sortEvents, type SortedEvents } from './sort-events';
import { storeBlobs, type FileOutcome } from './store-blobs';

/**
 * Stage 2, decide: what a batch of events changes in staging, as one `SyncBatch` for one
 * transaction. Files are decided with their content stored first (stage 3, `storeBlobs`); users
 * and groups are written only when their fingerprint changed. Counts and failures go to `tally`.
 */
export async function decideBatch(
  ctx: Pick<RunContext, 'source' | 'store' | 'blobs' | 'signal'>,
  tally: RunTally,
  events: Parameters<typeof sortEvents>[1],
  stamp: string,
): Promise<SyncBatch> {
  const sorted = sortEvents(ctx.source, events, tally);
  const states = await ctx.store.fileStates([...sorted.files.keys()]);
  await takeFileOutcomes(
    storeBlobs(ctx.source, sorted.files, states, ctx.blobs, stamp, (id) => ctx.store.stagedBody(id)),
    sorted.batch,
    tally,
    ctx.signal,
  );
  await decideIdentities(ctx, sorted, tally, stamp);
  await narrowFailedAccess(ctx, sorted, stamp);
  await narrowFailedMembers(ctx, sorted, stamp);
  return sorted.batch;
}

/**
 * Failed groups whose member list could not be resolved whole: each one's staged members narrowed
 * to those the source still lists (never one added), in this batch's transaction, written as any
 * change of members is (`modified_at` moved on). A group not staged stays unstaged.
 */
async function narrowFailedMembers(ctx: Pick<RunContext, 'source' | 'store'>, sorted: SortedEvents, stamp: string): Promise<void> {
  if (sorted.narrowMembers.size === 0) return;
  const staged = await ctx.store.stagedGroups([...sorted.narrowMembers.keys()]);
  for (const [id, atMost] of sorted.narrowMembers) {
    const write = decideNarrowedMembers(ctx.source, atMost, staged.get(id), stamp);
    if (write) sorted.batch.groups.push(write);
  }
}

/**
 * Failed files whose new access rule could not be resolved whole: each staged access list narrowed
 * to the entries the source still grants (never widened), in this batch's transaction. A file not
 * staged stays unstaged; its failure is counted and retried as any other.
 */
async function narrowFailedAccess(ctx: Pick<RunContext, 'source' | 'store'>, sorted: SortedEvents, stamp: string): Promise<void> {
  if (sorted.narrow.size === 0) return;
  const ids = [...sorted.narrow.keys()];
  const states = await ctx.store.fileStates(ids);
  const staged = await ctx.store.stagedAccess(ids);
  for (const [id, atMost] of sorted.narrow) {
    const decision = decideNarrowedAccess(ctx.source, atMost, staged.get(id) ?? [], states.get(id), stamp);
    if (decision.kind === 'permissions') sorted.batch.permissions.push({ fileId: id, permissions: decision.permissions, hash: decision.hash, at: decision.at });
  }
}

/**
 * Each file's outcome, in order, into the batch and the tally. A failed file counts against the
 * error budget (which may stop the run); a source error that asks to abort, or a cancelled run,
 * stops it at once. Every file is marked seen, failed or not, so a sweep never deletes it for a
 * failure to read it.
 */
export async function takeFileOutcomes(outcomes: AsyncIterable<FileOutcome>, batch: SyncBatch, tally: RunTally, signal: AbortSignal): Promise<void> {
  for await (const { id, error, decision } of outcomes) {
    batch.seen.push({ kind: 'file', id });
    if (error || !decision) {
      if (signal.aborted) throw new RunCancelled();
      if (isSourceError(error) && error.action === 'abort') throw error;
      tally.fail(id, error ?? new Error('no decision'));
      continue;
    }
    if ((decision.kind === 'unchanged' || decision.kind === 'permissions') && decision.version !== undefined)
      batch.versions.push({ fileId: id, version: decision.version });
    if (decision.kind === 'unchanged') tally.counts.unchanged++;
    else if (decision.kind === 'permissions') {
      tally.counts.changed++;
      batch.permissions.push({ fileId: id, permissions: decision.permissions, hash: decision.hash, at: decision.at });
    } else {
      tally.counts[decision.kind]++;
      batch.files.push({ row: decision.row, permissions: decision.permissions, stored: decision.kind === 'changed' });
    }
  }
}

/** Users and groups: written when their fingerprint changed, counted either way, marked seen. */
async function decideIdentities(ctx: Pick<RunContext, 'source' | 'store'>, sorted: SortedEvents, tally: RunTally, stamp: string): Promise<void> {
  const { batch } = sorted;
  const userStates = await ctx.store.userStates([...sorted.users.keys()]);
  for (const [id, record] of sorted.users) {
    batch.seen.push({ kind: 'user', id });
    const state = userStates.get(id);
    countIdentity(tally, state !== undefined, decideUser(ctx.source, record, state, stamp), batch.users);
  }
  const groupStates = await ctx.store.groupStates([...sorted.groups.keys()]);
  for (const [id, record] of sorted.groups) {
    batch.seen.push({ kind: 'group', id });
    const state = groupStates.get(id);
    countIdentity(tally, state !== undefined, decideGroup(ctx.source, record, state, stamp), batch.groups);
  }
}

function countIdentity<W>(tally: RunTally, stored: boolean, write: W | undefined, out: W[]): void {
  if (!write) {
    tally.identities.unchanged++;
    return;
  }
  tally.identities[stored ? 'changed' : 'added']++;
  out.push(write);
}
