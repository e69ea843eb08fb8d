import crypto from 'node:crypto';
import { throwIfAborted } from '../../lib/abort-error';
import { SourceRequestError } from '../source-error';
import { selectPath } from './rest-expressions';
import { hookFunction, type RestHookNextPage, type RestHookPage, type RestPaginatorHook } from './rest-hooks';
import type { Listing, Paginator } from './rest-manifest';
import type { PageTarget, Reply, RestRequester } from './rest-requester';

/** One page of a listing: its records (as selected, before any filter). */
export interface ListingPage {
  records: unknown[];
  pageNumber: number;
}

export const DEFAULT_MAX_PAGES = 100_000;

export interface PagingOptions {
  /** Names the listing in messages: `streams.groups.members` */
  what: string;
  signal: AbortSignal;
  maxPages?: number;
  /** The parent record, for `{record.x}` in paths. */
  record?: unknown;
}

/** How far a walk is: what the next page is, decided from the page just read. */
interface WalkState {
  target: PageTarget;
  /** Records seen so far (for `total_path`). */
  seen: number;
  position: number;
}

/**
 * A listing, page by page, to its natural end: no next cursor, URL or link; an empty page (offset
 * and page-number paging, or when `stop.empty_page` says so); the total reached; a has-more flag
 * false. A short page is not an end (an API may cap page sizes). It never stops quietly before:
 * a failed page throws, a cursor or URL seen before, a page that repeats the previous one (an
 * ignored offset) and more than `max_pages` pages throw too, so a listing that was not read to its
 * end is never taken as complete.
 */
export async function* paginate(requester: RestRequester, listing: Listing, options: PagingOptions): AsyncGenerator<ListingPage> {
  const paginator: Paginator = listing.paginator ?? { type: 'none' };
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const visited = new Set<string>();
  let previous: string | undefined;
  let state: WalkState = { target: firstTarget(paginator), seen: 0, position: paginator.start_from ?? (paginator.type === 'page_number' ? 1 : 0) };
  for (let pageNumber = 1; ; pageNumber += 1) {
    throwIfAborted(options.signal);
    if (pageNumber > maxPages) throw new SourceRequestError(`${options.what}: more than ${maxPages} pages; refusing to go on (a listing that never ends?)`);
    const reply = await requester.send(listing.requester, options.record, state.target);
    if (reply === 'ignored') throw new SourceRequestError(`${options.what}: a page was ignored; a listing cannot skip pages`);
    const records = recordsOf(reply, listing.record_selector, options.what);
    const signature = records.length === 0 ? undefined : crypto.createHash('sha256').update(JSON.stringify(records)).digest('hex');
    if (signature !== undefined && signature === previous)
      throw new SourceRequestError(
        `${options.what}: page ${pageNumber} repeats page ${pageNumber - 1}; refusing to go on (does the API honour the paging parameters?)`,
      );
    previous = signature;
    yield { records, pageNumber };
    const next =
      paginator.type === 'hook'
        ? await hookState(
            paginator,
            { status: reply.status, headers: reply.headers, body: reply.body, records, pageNumber, request: state.target },
            state,
            options.what,
          )
        : nextState(paginator, reply, records.length, state);
    if (next === undefined) return;
    const key = JSON.stringify(next.target);
    if (visited.has(key)) throw new SourceRequestError(`${options.what}: page ${pageNumber} points at a page already read; refusing to loop`);
    visited.add(key);
    state = next;
  }
}

const HOOK_TIMEOUT_MS = 60_000;

/** The page a paginator hook asks for next; a hook that throws, hangs or answers something else fails the listing. */
async function hookState(p: Paginator, page: RestHookPage, state: WalkState, what: string): Promise<WalkState | undefined> {
  const hook = hookFunction<RestPaginatorHook>(p);
  let timer: NodeJS.Timeout | undefined;
  let next: unknown;
  try {
    next = await Promise.race([
      Promise.resolve().then(() => hook(page)),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${HOOK_TIMEOUT_MS / 1000} s`)), HOOK_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    throw new SourceRequestError(`${what}: the paginator hook ${p.export ?? ''} failed: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
  if (next === undefined || next === null) return undefined;
  const target = next as RestHookNextPage;
  const queryOk =
    target.query === undefined ||
    (typeof target.query === 'object' && Object.values(target.query).every((v) => ['string', 'number', 'boolean'].includes(typeof v)));
  if (
    typeof next !== 'object' ||
    !queryOk ||
    (target.url !== undefined && typeof target.url !== 'string') ||
    (target.query === undefined && target.url === undefined)
  )
    throw new SourceRequestError(`${what}: the paginator hook ${p.export ?? ''} answered neither undefined nor { query } or { url }`);
  return { seen: state.seen + page.records.length, position: 0, target: target.url !== undefined ? { url: target.url } : { query: { ...target.query } } };
}

function recordsOf(reply: Reply, selector: string | undefined, what: string): unknown[] {
  const selected = selectPath(reply.body, selector);
  if (selected === undefined || selected === null) {
    if (selector === undefined || selector === '') return [];
    throw new SourceRequestError(`${what}: the answer has no "${selector}" (record_selector); refusing to take it as an empty page`);
  }
  if (!Array.isArray(selected)) throw new SourceRequestError(`${what}: record_selector "${selector ?? ''}" does not give a list`);
  return selected;
}

function firstTarget(p: Paginator): PageTarget {
  if (p.type === 'offset') return { query: { ...sizeQuery(p), [p.offset_param ?? 'offset']: p.start_from ?? 0 } };
  if (p.type === 'page_number') return { query: { ...sizeQuery(p), [p.page_param ?? 'page']: p.start_from ?? 1 } };
  return { query: sizeQuery(p) };
}

function sizeQuery(p: Paginator): Record<string, number> {
  return p.page_size === undefined ? {} : { [p.limit_param ?? 'limit']: p.page_size };
}

/** The page after this one, or undefined at the listing's natural end. */
function nextState(p: Paginator, reply: Reply, count: number, state: WalkState): WalkState | undefined {
  const seen = state.seen + count;
  const stop = p.stop ?? {};
  if (stop.has_more_path !== undefined) {
    const more = selectPath(reply.body, stop.has_more_path);
    if (more === false || more === 'false') return undefined;
    if (more !== true && more !== 'true') throw new SourceRequestError(`The answer's "${stop.has_more_path}" (stop.has_more_path) is not true or false`);
  }
  if (stop.total_path !== undefined) {
    const total = Number(selectPath(reply.body, stop.total_path));
    if (!Number.isFinite(total)) throw new SourceRequestError(`The answer's "${stop.total_path}" (stop.total_path) is not a number`);
    if (seen >= total) return undefined;
  }
  const emptyEnds = stop.empty_page ?? (p.type === 'offset' || p.type === 'page_number');
  if (count === 0 && emptyEnds) return undefined;
  const token = (value: unknown): string | undefined =>
    typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
  switch (p.type) {
    case 'none':
    case 'hook':
      return undefined;
    case 'offset': {
      const position = state.position + count;
      return { seen, position, target: { query: { ...sizeQuery(p), [p.offset_param ?? 'offset']: position } } };
    }
    case 'page_number': {
      const position = state.position + 1;
      return { seen, position, target: { query: { ...sizeQuery(p), [p.page_param ?? 'page']: position } } };
    }
    case 'cursor':
    case 'header_cursor': {
      const cursor = token(p.type === 'cursor' ? selectPath(reply.body, p.cursor_path) : reply.headers.get(p.header!));
      return cursor === undefined ? undefined : { seen, position: 0, target: { query: { ...sizeQuery(p), [p.cursor_param!]: cursor } } };
    }
    case 'next_url': {
      const url = token(selectPath(reply.body, p.next_url_path));
      return url === undefined ? undefined : { seen, position: 0, target: { url } };
    }
    case 'link_header': {
      const url = nextLink(reply.headers.get('link'));
      return url === undefined ? undefined : { seen, position: 0, target: { url } };
    }
  }
}

/** The `rel="next"` target of an RFC 8288 `Link` header. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel\s*=\s*"?([^";]*\s)?next(\s[^";]*)?"?\s*(;|$)/i.test(match[2] ?? '')) return match[1];
  }
  return undefined;
}
