import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type { AccessEntry, LiveFile, SettleEvent, SettleRequest } from '../adapter';
import { accessAtMostOf, resolveAccess, UnresolvedAccessError, type AccessDeps } from './rest-access';
import { listAll } from './rest-directory';
import { documentPages, fileEvent } from './rest-document-walk';
import type { ChildDocumentsStream, DocumentsStream } from './rest-manifest';
import { optionalText, RestRecordError } from './rest-records';

const WHAT = 'streams.documents';

/**
 * What `settle` needs to read a listed file whole: the record it was listed with, its stream and
 * its parent's access (a child's). Each live file carries its own; the engine hands back those of
 * the files staging lacks, so no listed record is held here.
 */
interface ListedRecord {
  stream: ChildDocumentsStream;
  record: unknown;
  parentAccess?: readonly AccessEntry[];
}

/** What one live listing saw, for `settle` after it: the ids it yielded, what could not be vouched for. */
export interface LiveState {
  /** Ids the listing yielded. */
  listed: Set<string>;
  /**
   * Files whose access could not be read whole: never taken as gone. Each is listed too: as
   * unresolved when its rule cannot be resolved whole (narrowed), else as unreadable (kept as staged).
   */
  unreadable: Map<string, Error>;
  /** A record without an id, or a child listing that failed: some staged file may be among the unseen, so none is taken as gone. */
  incomplete: Error | undefined;
  containers: AccessDeps['containers'];
}

export function newLiveState(containers: AccessDeps['containers']): LiveState {
  return { listed: new Set(), unreadable: new Map(), incomplete: undefined, containers };
}

/**
 * A listed file whose access could not be read whole: noted as unreadable (never taken as gone;
 * its children's parent access), and listed: as unresolved with what it still grants when its rule
 * was read but cannot be resolved whole, for the engine to narrow its staged list to (fail
 * closed); as unreadable on a transient error (a failed request), the file keeping its staged
 * access and the run naming the failure.
 */
function unreadableAccess(nativeId: string, error: Error, state: LiveState): LiveFile {
  state.unreadable.set(nativeId, error);
  return error instanceof UnresolvedAccessError ? { nativeId, unresolved: error, accessAtMost: error.accessAtMost } : { nativeId, unreadable: error };
}

function tombstoneOf(stream: DocumentsStream): string | undefined {
  return stream.incremental_sync?.type === 'updated_since' ? stream.incremental_sync.tombstone : undefined;
}

/** One listed record and its children with their access (no content). */
async function liveOfRecord(stream: DocumentsStream, record: unknown, deps: AccessDeps, state: LiveState): Promise<LiveFile[]> {
  const id = await optionalText(deps.expressions, stream.map.id, record).catch(() => undefined);
  if (id === undefined) {
    state.incomplete = new RestRecordError(`${WHAT}.map.id: a listed record gives no id`);
    return [];
  }
  const out: LiveFile[] = [];
  let access: AccessEntry[] | undefined;
  try {
    access = await resolveAccess(stream.access, record, deps, `${WHAT}.access`);
    out.push({ nativeId: id, access, record: { stream, record } satisfies ListedRecord });
  } catch (error) {
    out.push(unreadableAccess(id, error as Error, state));
  }
  const parent = access ?? state.unreadable.get(id);
  for (const [index, child] of (stream.children ?? []).entries()) out.push(...(await liveChildren(child, index, record, parent, deps, state)));
  return out;
}

/**
 * One child listing of a listed record, with each child's access given its parent's (`parent`:
 * its access, or the error that kept it from being read).
 */
async function liveChildren(
  child: ChildDocumentsStream,
  index: number,
  record: unknown,
  parent: readonly AccessEntry[] | Error | undefined,
  deps: AccessDeps,
  state: LiveState,
): Promise<LiveFile[]> {
  const what = `${WHAT}.children[${index}]`;
  let records: unknown[];
  try {
    records = await listAll(child, deps, what, record);
  } catch (error) {
    state.incomplete = error as Error;
    return [];
  }
  const out: LiveFile[] = [];
  for (const childRecord of records) {
    const childId = await optionalText(deps.expressions, child.map.id, childRecord).catch(() => undefined);
    if (childId === undefined) {
      state.incomplete = new RestRecordError(`${what}.map.id: a listed child gives no id`);
      continue;
    }
    if (parent === undefined || parent instanceof Error) {
      out.push(unreadableAccess(childId, await orphanError(child, childRecord, parent, deps, what), state));
      continue;
    }
    try {
      const childAccess = await resolveAccess(child.access, childRecord, { ...deps, parentAccess: parent }, `${what}.access`);
      const listed: ListedRecord = { stream: child, record: childRecord, parentAccess: parent };
      out.push({ nativeId: childId, access: childAccess, record: listed });
    } catch (error) {
      out.push(unreadableAccess(childId, error as Error, state));
    }
  }
  return out;
}

/** Why a child of a parent whose access could not be read is unreadable: narrowed to what it grants at most when the parent's rule was read but not resolvable whole. */
async function orphanError(child: ChildDocumentsStream, record: unknown, parent: Error | undefined, deps: AccessDeps, what: string): Promise<Error> {
  const message = `${what}: the parent's access could not be read`;
  if (!(parent instanceof UnresolvedAccessError)) return new RestRecordError(message);
  const atMost = await accessAtMostOf(child.access, record, { ...deps, parentAccess: parent.accessAtMost }, `${what}.access`);
  return atMost ? new UnresolvedAccessError(`${message}: ${parent.message}`, atMost) : new RestRecordError(message);
}

/**
 * Every document the full listing shows (no lower bound, no feed), with its access and its
 * children's: what reconciliation and access-only runs compare staging with. A failed page throws
 * (an incomplete listing never deletes); a record the filter leaves out or the tombstone says is
 * deleted is not live. A file whose access list has an entry it cannot resolve (or whose parent's
 * has) is listed as unresolved, with what the rest still grants; one whose access could not be
 * read (a failed request) is left out, its staged access kept. A file is yielded once.
 */
export async function* liveFilesOf(stream: DocumentsStream, deps: AccessDeps, concurrency: number, state: LiveState): AsyncGenerator<LiveFile> {
  const seen = state.listed;
  const pool = new ConcurrencyPool(concurrency);
  const tombstone = tombstoneOf(stream);
  for await (const page of documentPages(stream, deps)) {
    const kept: unknown[] = [];
    for (const record of page.records) {
      if (stream.filter !== undefined && !(await deps.expressions.truth(stream.filter, record))) continue;
      if (tombstone !== undefined && (await deps.expressions.truth(tombstone, record))) continue;
      kept.push(record);
    }
    for (const files of kept.map((record) => pool.run(() => liveOfRecord(stream, record, deps, state))))
      for (const file of await files) {
        if (seen.has(file.nativeId)) continue;
        seen.add(file.nativeId);
        yield file;
      }
  }
  // A children listing that failed (or a record without an id): the listing is incomplete, so it
  // fails as a failed page does, named in the run's summary; nothing is deleted, staged state kept.
  if (state.incomplete) throw state.incomplete;
}

/**
 * What the listing could not vouch for: a staged file it did not show is gone (nothing said),
 * unless its access could not be read or the listing was incomplete (a failure: staged state
 * kept, but narrowed to what an access rule that could not be resolved whole still grants); a
 * listed file staging lacks is read whole from its listed record. A file whose access could not
 * be read is listed (unresolved or unreadable), so the engine asks nothing about it and counts
 * its failure from the listing; `state.unreadable` guards it all the same should it be asked.
 */
export async function* settleOf(request: SettleRequest, state: LiveState, deps: AccessDeps): AsyncGenerator<SettleEvent> {
  for (const nativeId of request.unlisted) {
    const error = state.unreadable.get(nativeId) ?? state.incomplete;
    // An access rule read but not resolvable whole: narrowed to what it still grants (fail closed).
    const narrowed = error instanceof UnresolvedAccessError ? { accessAtMost: error.accessAtMost } : {};
    if (error) yield { type: 'failure', kind: 'file', nativeId, error, ...narrowed };
  }
  for (const nativeId of request.missing) {
    const entry = request.records?.get(nativeId) as ListedRecord | undefined;
    if (!entry) {
      yield { type: 'failure', kind: 'file', nativeId, error: new RestRecordError(`${WHAT}: ${nativeId} was not in the live listing`) };
      continue;
    }
    const withParent = entry.parentAccess ? { ...deps, parentAccess: entry.parentAccess } : deps;
    yield await fileEvent(entry.stream, entry.record, { ...withParent, containers: state.containers }, WHAT);
  }
}
