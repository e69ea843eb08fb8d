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
 * Stage 2a, decide (no I/O): sorts a batch's events by kind and global id. The last event for a file
 * wins (a delete over an earlier file event, a file event over an earlier delete); a delete counts
 * as deleted (a file, or a user or group); a failed item is marked seen, so a full run's sweep keeps
 * it as it was, and a failed file with `accessAtMost` is noted for narrowing (over an earlier file
 * event for it: the last event wins), as is a failed group with `membersAtMost`. Files the events
 * settle are noted for reconciliation.
 */
export function sortEvents(source: string, events: readonly SyncEvent[], tally: RunTally): SortedEvents {
  const sorted: SortedEvents = { files: new Map(), users: new Map(), groups: new Map(), narrow: new Map(), narrowMembers: new Map(), batch: emptyBatch() };
  const { batch } = sorted;
  for (const e of events) {
    if (tally.touched) {
      const fileId = eventFileId(source, e);
      if (fileId) tally.touched.add(fileId);
    }
    if (e.type === 'file') {
      const id = globalId(source, e.file.nativeId);
      sorted.files.set(id, e.file);
      sorted.narrow.delete(id);
      // A file event after a delete of the same id (a change feed's delete, then the document made again) wins: the last event for an id.
      const dropped = batch.tombstones.indexOf(id);
      if (dropped >= 0) {
        batch.tombstones.splice(dropped, 1);
        tally.counts.deleted--;
      }
    } else if (e.type === 'user') sorted.users.set(globalId(source, e.user.nativeId), e.user);
    else if (e.type === 'group') {
      const id = globalId(source, e.group.nativeId);
      sorted.groups.set(id, e.group);
      sorted.narrowMembers.delete(id);
    } else if (e.type === 'delete') {
      const id = globalId(source, e.nativeId);
      sorted.files.delete(id);
      sorted.narrow.delete(id);
      if (e.kind === 'group') sorted.narrowMembers.delete(id);
      if (e.kind === 'file') batch.tombstones.push(id);
      else if (e.kind === 'user') batch.inactivate.push(id);
      else batch.deleteGroups.push(id);
      if (e.kind === 'file') tally.counts.deleted++;
      else tally.identities.deleted++;
    } else if (e.type === 'failure' && e.nativeId && e.kind) {
      const id = globalId(source, e.nativeId);
      batch.seen.push({ kind: e.kind, id });
      if (e.kind === 'file' && e.accessAtMost) {
        sorted.files.delete(id);
        sorted.narrow.set(id, e.accessAtMost);
      }
      if (e.kind === 'group' && e.membersAtMost) {
        sorted.groups.delete(id);
        sorted.narrowMembers.set(id, e.membersAtMost);
      }
    }
  }
  return sorted;
}
