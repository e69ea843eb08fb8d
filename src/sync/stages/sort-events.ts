import type { AccessEntry, FileRecord, GroupRecord, Principal, SyncEvent, UserRecord } from '../../adapters/adapter';
import { emptyBatch, type SyncBatch } from '../../staging/write-path/sync-store';
import { globalId } from '../record-rows';
import { eventFileId } from '../reconcile-access';
import type { RunTally } from '../run-context';

/** A batch's events by kind, the last event for an id winning; deletes already in the batch. */
export interface SortedEvents {
  files: Map<string, FileRecord>;
  users: Map<string, UserRecord>;
  groups: Map<string, GroupRecord>;
  /** Failed files whose staged access is to be narrowed: the entries the source still grants (`accessAtMost`). */
  narrow: Map<string, readonly AccessEntry[]>;
  /** Failed groups whose staged members are to be narrowed: the members the source still lists (`membersAtMost`). */
  narrowMembers: Map<string, readonly Principal[]>;
  /** Tombstones, inactivations, group deletions, and the seen marks of failed items. */
  batch: SyncBatch;
}

/**
 * Stage 2a, decide (no I/O): sorts a batch's events by kind and global id. The last event for an
 * item wins, within its kind only (a file and a group may share a global id): a delete over an
 * earlier write, a write over an earlier delete (a feed deleted it, then it was made again). A
 * delete counts as deleted (a file, or a user or group); a failed item is marked seen, so a full
 * run's sweep keeps it as it was, and a failed file with `accessAtMost` is noted for narrowing
 * (over an earlier file event for it), as is a failed group with `membersAtMost`. Files the events
 * settle are noted for reconciliation.
 */
export function sortEvents(source: string, events: readonly SyncEvent[], tally: RunTally): SortedEvents {
  const sorted: SortedEvents = { files: new Map(), users: new Map(), groups: new Map(), narrow: new Map(), narrowMembers: new Map(), batch: emptyBatch() };
  for (const e of events) {
    if (tally.touched) {
      const fileId = eventFileId(source, e);
      if (fileId) tally.touched.add(fileId);
    }
    if (e.type === 'file') sortWrite(sorted, tally, 'file', globalId(source, e.file.nativeId), e.file);
    else if (e.type === 'user') sortWrite(sorted, tally, 'user', globalId(source, e.user.nativeId), e.user);
    else if (e.type === 'group') sortWrite(sorted, tally, 'group', globalId(source, e.group.nativeId), e.group);
    else if (e.type === 'delete') sortDelete(sorted, tally, e.kind, globalId(source, e.nativeId));
    else if (e.type === 'failure' && e.nativeId && e.kind) sortFailure(sorted, e, globalId(source, e.nativeId));
  }
  return sorted;
}

type Kind = 'file' | 'user' | 'group';

/** The batch's deletes of one kind: tombstones, inactivations or group deletions. */
function deletesOf(batch: SyncBatch, kind: Kind): string[] {
  return kind === 'file' ? batch.tombstones : kind === 'user' ? batch.inactivate : batch.deleteGroups;
}

/** A write of an item: it replaces an earlier write, narrowing or delete of the same item in the batch. */
function sortWrite(sorted: SortedEvents, tally: RunTally, kind: Kind, id: string, record: FileRecord | UserRecord | GroupRecord): void {
  if (kind === 'file') {
    sorted.files.set(id, record as FileRecord);
    sorted.narrow.delete(id);
  } else if (kind === 'user') sorted.users.set(id, record as UserRecord);
  else {
    sorted.groups.set(id, record as GroupRecord);
    sorted.narrowMembers.delete(id);
  }
  const deletes = deletesOf(sorted.batch, kind);
  const dropped = deletes.indexOf(id);
  if (dropped < 0) return;
  deletes.splice(dropped, 1);
  if (kind === 'file') tally.counts.deleted--;
  else tally.identities.deleted--;
}

/** A delete of an item: it replaces an earlier write or narrowing of the same item in the batch. */
function sortDelete(sorted: SortedEvents, tally: RunTally, kind: Kind, id: string): void {
  if (kind === 'file') {
    sorted.files.delete(id);
    sorted.narrow.delete(id);
  } else if (kind === 'user') sorted.users.delete(id);
  else {
    sorted.groups.delete(id);
    sorted.narrowMembers.delete(id);
  }
  const deletes = deletesOf(sorted.batch, kind);
  if (deletes.includes(id)) return;
  deletes.push(id);
  if (kind === 'file') tally.counts.deleted++;
  else tally.identities.deleted++;
}

/** A failed item: marked seen; one whose access or members could not be resolved whole is noted for narrowing, over an earlier write of it. */
function sortFailure(sorted: SortedEvents, e: Extract<SyncEvent, { type: 'failure' }>, id: string): void {
  if (!e.kind) return;
  sorted.batch.seen.push({ kind: e.kind, id });
  if (e.kind === 'file' && e.accessAtMost) {
    sorted.files.delete(id);
    sorted.narrow.set(id, e.accessAtMost);
  }
  if (e.kind === 'group' && e.membersAtMost) {
    sorted.groups.delete(id);
    sorted.narrowMembers.set(id, e.membersAtMost);
  }
}
