import { throwIfAborted } from '../../lib/abort-error';
import { SourceRequestError } from '../source-error';
import type { SyncEvent } from '../adapter';
import type { AccessDeps } from './rest-access';
import { recordEvents } from './rest-document-walk';
import { selectPath } from './rest-expressions';
import type { ChangeFeedSync, DocumentsStream } from './rest-manifest';
import { DEFAULT_MAX_PAGES } from './rest-paginator';
import { requiredText } from './rest-records';
import type { Reply } from './rest-requester';

const WHAT = 'streams.documents.incremental_sync.feed';

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

/** One event as sync events: a delete, or the document (with its children) read from the event's record; a record the filter leaves out is a delete. */
async function eventsOf(stream: DocumentsStream, sync: ChangeFeedSync, event: unknown, deps: AccessDeps): Promise<SyncEvent[]> {
  let id: string;
  try {
    id = await requiredText(deps.expressions, sync.map.id, event, `${WHAT.replace('.feed', '')}.map.id`);
  } catch (error) {
    return [{ type: 'failure', kind: 'file', error: error as Error }];
  }
  const { expressions } = deps;
  try {
    if (sync.map.delete !== undefined && (await expressions.truth(sync.map.delete, event))) return [{ type: 'delete', kind: 'file', nativeId: id }];
    const record = sync.map.record === undefined ? event : await expressions.evaluate(sync.map.record, event);
    if (record === undefined || record === null || typeof record !== 'object') throw new SourceRequestError(`${WHAT}: an upsert event carries no record`);
    if (stream.filter !== undefined && !(await expressions.truth(stream.filter, record))) return [{ type: 'delete', kind: 'file', nativeId: id }];
    return await recordEvents(stream, record, deps);
  } catch (error) {
    return [{ type: 'failure', kind: 'file', nativeId: id, error: error as Error }];
  }
}

/**
 * The feed from `token`, page by page in order, to its end; after each page a position (`moved`
 * gives the checkpoint event for it). A failed page fails the run (the stored token stays); an
 * answer a `full_run` rule matches (an expired token) throws FullRunRequired. An event that cannot
 * be read is its document's failure (its staged state kept): the token moves past it.
 */
export async function* feedEvents(
  stream: DocumentsStream,
  sync: ChangeFeedSync,
  deps: AccessDeps,
  token: string,
  moved: (token: string) => SyncEvent,
): AsyncGenerator<SyncEvent> {
  let current = token;
  const maxPages = deps.maxPages ?? DEFAULT_MAX_PAGES;
  for (let page = 1; ; page += 1) {
    throwIfAborted(deps.signal);
    if (page > maxPages) throw new SourceRequestError(`${WHAT}: more than ${maxPages} pages; refusing to go on`);
    const reply = await deps.requester.send(sync.feed.requester, undefined, { query: { [sync.feed.token_parameter]: current } });
    if (reply === 'ignored') throw new SourceRequestError(`${WHAT}: a page was ignored; a feed cannot skip pages`);
    const selected = selectPath(reply.body, sync.feed.record_selector);
    const events = selected === undefined || selected === null ? [] : selected;
    if (!Array.isArray(events)) throw new SourceRequestError(`${WHAT}.record_selector: the page's events are not a list`);
    for (const event of events) yield* await eventsOf(stream, sync, event, deps);
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
