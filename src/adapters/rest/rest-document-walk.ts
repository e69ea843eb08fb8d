import { throwIfAborted } from '../../lib/abort-error';
import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type { SyncEvent } from '../adapter';
import { accessAtMostOf, UnresolvedAccessError, type AccessDeps } from './rest-access';
import { listAll } from './rest-directory';
import { toFile } from './rest-documents';
import type { ChildDocumentsStream, DocumentsStream } from './rest-manifest';
import { paginate, type ListingPage } from './rest-paginator';
import { recordVersion } from './rest-incremental-version';
import { optionalText, requiredText } from './rest-records';

const WHAT = 'streams.documents';

/** Documents with their version and children: `previous` from the last checkpoint (unchanged ones are skipped), `next` filled by this run. */
export interface DocumentTracker {
  previous: Record<string, { version: string; children: string[] }> | undefined;
  next: Record<string, { version: string; children: string[] }>;
}

/** The documents listing's pages: once, or once per partition (a parent record) when a partition router is given. Any failed page throws. */
export async function* documentPages(stream: DocumentsStream, deps: AccessDeps): AsyncGenerator<ListingPage> {
  const paging = { what: WHAT, signal: deps.signal, ...(deps.maxPages ? { maxPages: deps.maxPages } : {}) };
  if (!stream.partition_router) {
    yield* paginate(deps.requester, stream, paging);
    return;
  }
  const partitions = await listAll(stream.partition_router.parent, deps, `${WHAT}.partition_router.parent`);
  for (const partition of partitions) yield* paginate(deps.requester, stream, { ...paging, record: partition });
}

function listedVersionOf(stream: DocumentsStream): string | undefined {
  return stream.incremental_sync?.type === 'listed_version' ? stream.incremental_sync.version : undefined;
}

/** One record as a file event, or its failure (never a guessed access list). */
export async function fileEvent(stream: ChildDocumentsStream, record: unknown, deps: AccessDeps, what: string): Promise<SyncEvent> {
  let nativeId: string | undefined;
  try {
    nativeId = await requiredText(deps.expressions, stream.map.id, record, `${what}.map.id`);
    return { type: 'file', file: await toFile(stream, record, nativeId, deps) };
  } catch (error) {
    nativeId ??= await optionalText(deps.expressions, stream.map.id, record).catch(() => undefined);
    // An access rule that cannot be resolved whole: the rest of it is all it still grants (fail closed).
    const narrowed = error instanceof UnresolvedAccessError ? { accessAtMost: error.accessAtMost } : {};
    return { type: 'failure', kind: 'file', ...(nativeId ? { nativeId } : {}), error: error as Error, ...narrowed };
  }
}

/**
 * A child listed under a parent that failed: a failure (its staged state kept), but when the
 * parent's access rule could not be resolved whole, narrowed to what the child's rule grants at
 * most with what its parent still grants.
 */
async function orphanEvent(child: ChildDocumentsStream, record: unknown, parentEvent: SyncEvent, deps: AccessDeps, what: string): Promise<SyncEvent> {
  const nativeId = await optionalText(deps.expressions, child.map.id, record).catch(() => undefined);
  const error = parentEvent.type === 'failure' ? parentEvent.error : new Error(`${what}: the parent failed`);
  const failure: SyncEvent = { type: 'failure', kind: 'file', ...(nativeId ? { nativeId } : {}), error };
  const parentAtMost = parentEvent.type === 'failure' ? parentEvent.accessAtMost : undefined;
  if (!parentAtMost || !nativeId) return failure;
  const accessAtMost = await accessAtMostOf(child.access, record, { ...deps, parentAccess: parentAtMost }, `${what}.access`);
  return accessAtMost ? { ...failure, accessAtMost } : failure;
}

/**
 * A child stream of one parent, listed to its end. When the parent failed, each child is a
 * failure too (it keeps its staged state: its access is its parent's; narrowed as the parent's). A child listing that fails
 * yields nothing for it: a full run then sweeps those children (removed, never over-exposed).
 */
async function childEvents(child: ChildDocumentsStream, index: number, parent: unknown, parentEvent: SyncEvent, deps: AccessDeps): Promise<SyncEvent[]> {
  const what = `${WHAT}.children[${index}]`;
  let records: unknown[];
  try {
    records = await listAll(child, deps, what, parent);
  } catch (error) {
    return [{ type: 'failure', kind: 'file', error: error as Error }];
  }
  const out: SyncEvent[] = [];
  for (const record of records) {
    if (parentEvent.type !== 'file') {
      out.push(await orphanEvent(child, record, parentEvent, deps, what));
      continue;
    }
    out.push(await fileEvent(child, record, { ...deps, parentAccess: parentEvent.file.access }, what));
  }
  return out;
}

/**
 * A listed record and its children, as events in order. With a tracker: nothing when its version
 * is the checkpoint's (its children are not listed again); its version and children recorded when
 * it and every child listing were read whole (else it is read again next run).
 */
export async function recordEvents(stream: DocumentsStream, record: unknown, deps: AccessDeps, tracker?: DocumentTracker): Promise<SyncEvent[]> {
  const id = await optionalText(deps.expressions, stream.map.id, record).catch(() => undefined);
  const version = tracker && id !== undefined ? recordVersion(record, await optionalText(deps.expressions, listedVersionOf(stream), record)) : undefined;
  const before = id !== undefined ? tracker?.previous?.[id] : undefined;
  if (tracker && id !== undefined && version !== undefined && before?.version === version) {
    tracker.next[id] = before;
    return [];
  }
  const event = await fileEvent(stream, record, deps, WHAT);
  const out = [event];
  for (const [index, child] of (stream.children ?? []).entries()) out.push(...(await childEvents(child, index, record, event, deps)));
  if (tracker && id !== undefined && version !== undefined) {
    const whole = out.every((e) => e.type === 'file');
    // The children listed now, yielded or failed by id: one gone from a listing read whole is deleted, even beside a sibling that failed.
    const children = out.slice(1).flatMap((e) => (e.type === 'file' ? [e.file.nativeId] : e.type === 'failure' && e.nativeId ? [e.nativeId] : []));
    // Any failure leaves no version: read again next run. Only the children listed now are known:
    // after a child listing that failed (or a child without an id), the others are deleted as gone
    // from a parent read again, as a full run's sweep removes what it did not yield, since their
    // staged access may hold a grant their parent just lost (they come back when it is read again).
    tracker.next[id] = { version: whole ? version : '', children };
  }
  return out;
}

/**
 * Documents page by page (a failed page fails the run), each record with its access, body and
 * children read with at most `concurrency` records in flight. A record listed twice (in two
 * partitions) is yielded once.
 */
export async function* documentEvents(stream: DocumentsStream, deps: AccessDeps, concurrency: number, tracker?: DocumentTracker): AsyncGenerator<SyncEvent> {
  const seen = new Set<string>();
  const pool = new ConcurrencyPool(concurrency);
  for await (const page of documentPages(stream, deps)) {
    const kept: unknown[] = [];
    for (const record of page.records) {
      if (stream.filter && !(await deps.expressions.truth(stream.filter, record))) continue;
      const id = await optionalText(deps.expressions, stream.map.id, record).catch(() => undefined);
      if (id !== undefined && seen.has(id)) continue;
      if (id !== undefined) seen.add(id);
      kept.push(record);
    }
    const window = concurrency * 4;
    for (let start = 0; start < kept.length; start += window) {
      const part = kept.slice(start, start + window).map((record) => pool.run(() => recordEvents(stream, record, deps, tracker)));
      for (const events of part) for (const event of await events) yield event;
    }
    throwIfAborted(deps.signal);
  }
}
