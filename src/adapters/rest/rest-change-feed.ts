import { throwIfAborted } from '../../lib/abort-error';
import { ConcurrencyPool } from '../../lib/concurrency-pool';
import { FullRunRequired, SourceNotFoundError, SourceRequestError } from '../source-error';
import type { SyncEvent } from '../adapter';
import type { AccessDeps } from './rest-access';
import { recordEvents } from './rest-document-walk';
import { selectPath } from './rest-expressions';
import type { ChangeFeedSync, DocumentsStream } from './rest-manifest';
import { DEFAULT_MAX_PAGES } from './rest-paginator';
import { requiredText } from './rest-records';
import type { Reply } from './rest-requester';

const WHAT = 'streams.documents.incremental_sync.feed';
const MAP = 'streams.documents.incremental_sync.map';

function tokenOf(sync: ChangeFeedSync, reply: Reply): string | undefined {
  const { token } = sync.feed;
  const value = token.from === 'header' ? reply.headers.get(token.name) : selectPath(reply.body, token.path);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'object') throw new SourceRequestError(`${WHAT}.token: the feed's token is not a text`);
  return String(value);
}

/** The feed's current position, asked before a full run lists anything (a change made during the listing is read again next run). */
export async function feedStart(sync: ChangeFeedSync, deps: AccessDeps): Promise<string> {
  const reply = await deps.requester.send(sync.feed.requester, undefined);
  if (reply === 'ignored') throw new SourceRequestError(`${WHAT}: the feed's answer was ignored by a rule; no position to start from`);
  const token = tokenOf(sync, reply);
  if (token === undefined) throw new SourceRequestError(`${WHAT}.token: the feed gave no token to start from`);
  return token;
}

const GONE = Symbol('gone');

/** An event and the document it is about, or the failure of an event without an id. */
type Decided = { event: unknown; id: string } | { failure: SyncEvent };

/** A page's events, each document once: its last event on the page decides (a delete after an upsert deletes), in feed order. */
async function lastPerDocument(sync: ChangeFeedSync, events: readonly unknown[], deps: AccessDeps): Promise<Decided[]> {
  const decided: Decided[] = [];
  for (const event of events) {
    try {
      decided.push({ event, id: await requiredText(deps.expressions, sync.map.id, event, `${MAP}.id`) });
    } catch (error) {
      decided.push({ failure: { type: 'failure', kind: 'file', error: error as Error } });
    }
  }
  const last = new Map<string, number>();
  decided.forEach((d, i) => 'id' in d && last.set(d.id, i));
  return decided.filter((d, i) => !('id' in d) || last.get(d.id) === i);
}

/**
 * An upsert event's record: from the event (`map.record`, default the event itself), or read by
 * `map.lookup`, a request whose `{record.x}` are the event's fields; GONE when the lookup answers
 * 404 or 410 (the source no longer has the document).
 */
async function recordOf(sync: ChangeFeedSync, event: unknown, deps: AccessDeps): Promise<unknown> {
  const { record, lookup } = sync.map;
  if (lookup === undefined) return record === undefined ? event : await deps.expressions.evaluate(record, event);
  let reply: Reply | 'ignored';
  try {
    reply = await deps.requester.send(lookup.requester, event);
  } catch (error) {
    if (error instanceof SourceNotFoundError) return GONE;
    throw error;
  }
  if (reply === 'ignored') throw new SourceRequestError(`${MAP}.lookup: the answer was ignored by a rule; the staged state is kept`);
  const found = selectPath(reply.body, lookup.record_selector);
  if (found === undefined || found === null || typeof found !== 'object')
    throw new SourceRequestError(`${MAP}.lookup: the answer holds no record${lookup.record_selector ? ` at "${lookup.record_selector}"` : ''}`);
  return found;
}

/**
 * One event as sync events: a delete, or the document (with its children) read from its record; a
 * record the filter leaves out, or a lookup the source answers 404 or 410, is a delete. Any other
 * failure is the document's (its staged state kept), but a `full_run` rule's answer ends the run.
 */
async function eventsOf(stream: DocumentsStream, sync: ChangeFeedSync, event: unknown, id: string, deps: AccessDeps): Promise<SyncEvent[]> {
  const { expressions } = deps;
  const deleted: SyncEvent[] = [{ type: 'delete', kind: 'file', nativeId: id }];
  try {
    if (sync.map.delete !== undefined && (await expressions.truth(sync.map.delete, event))) return deleted;
    const record = await recordOf(sync, event, deps);
    if (record === GONE) return deleted;
    if (record === undefined || record === null || typeof record !== 'object') throw new SourceRequestError(`${WHAT}: an upsert event carries no record`);
    if (stream.filter !== undefined && !(await expressions.truth(stream.filter, record))) return deleted;
    return await recordEvents(stream, record, deps);
  } catch (error) {
    if (error instanceof FullRunRequired) throw error;
    return [{ type: 'failure', kind: 'file', nativeId: id, error: error as Error }];
  }
}

/** A page's events as sync events, in feed order: each document once, read (and looked up) with at most `concurrency` in flight. */
async function pageEvents(
  stream: DocumentsStream,
  sync: ChangeFeedSync,
  events: readonly unknown[],
  deps: AccessDeps,
  pool: ConcurrencyPool,
): Promise<SyncEvent[]> {
  const decided = await lastPerDocument(sync, events, deps);
  const read = decided.map((d) => ('failure' in d ? Promise.resolve([d.failure]) : pool.run(() => eventsOf(stream, sync, d.event, d.id, deps))));
  return (await Promise.all(read)).flat();
}

/**
 * The feed from `token`, page by page in order, to its end; after each page a position (`moved`
 * gives the checkpoint event for it). A failed page fails the run (the stored token stays); an
 * answer a `full_run` rule matches (an expired token) throws FullRunRequired. An event that cannot
 * be read (its lookup failing too) is its document's failure (its staged state kept): the token
 * moves past it, and access reconciliation after the run covers its access.
 */
export async function* feedEvents(
  stream: DocumentsStream,
  sync: ChangeFeedSync,
  deps: AccessDeps,
  token: string,
  moved: (token: string) => SyncEvent,
  concurrency: number,
): AsyncGenerator<SyncEvent> {
  let current = token;
  const pool = new ConcurrencyPool(concurrency);
  const maxPages = deps.maxPages ?? DEFAULT_MAX_PAGES;
  for (let page = 1; ; page += 1) {
    throwIfAborted(deps.signal);
    if (page > maxPages) throw new SourceRequestError(`${WHAT}: more than ${maxPages} pages; refusing to go on`);
    const reply = await deps.requester.send(sync.feed.requester, undefined, { query: { [sync.feed.token_parameter]: current } });
    if (reply === 'ignored') throw new SourceRequestError(`${WHAT}: a page was ignored; a feed cannot skip pages`);
    const selected = selectPath(reply.body, sync.feed.record_selector);
    const events = selected === undefined || selected === null ? [] : selected;
    if (!Array.isArray(events)) throw new SourceRequestError(`${WHAT}.record_selector: the page's events are not a list`);
    yield* await pageEvents(stream, sync, events, deps, pool);
    const next = tokenOf(sync, reply);
    const more = sync.feed.has_more !== undefined ? await deps.expressions.truth(sync.feed.has_more, reply.body) : events.length > 0 && next !== current;
    if (more && (next === undefined || next === current)) throw new SourceRequestError(`${WHAT}: the feed says more follows but its token did not move`);
    if (next !== undefined && next !== current) {
      current = next;
      yield moved(current);
    }
    if (!more) return;
  }
}
