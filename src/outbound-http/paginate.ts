import { RemoteRequestError } from './remote-error';
import { throwIfAborted } from '../lib/abort-error';

/**
 * Pagination of remote APIs (adapters, platform clients), written once (DESIGN §6.6). Every walker is an async generator built on
 * `paginatePages`, which fetches one page per `next()` and never prefetches, so `break` in a
 * `for await` stops fetching at once (the generator's `return()` runs at its pending `yield`).
 *
 * Invariants:
 * - A page is fetched only after the previous one was consumed; an aborted `signal` stops
 *   before the next fetch with an `AbortError`.
 * - `null`, `undefined` and `''` as the next token all mean "last page" (`''` is how cursor
 *   APIs such as Slack's `next_cursor` say it).
 * - An empty page that still names a next token is not the end: keep walking (filtered
 *   listings can return empty intermediate pages).
 * - A token seen before in this walk means the remote is looping: `RemoteRequestError`.
 * - More than `maxPages` pages: `RemoteRequestError`. Never a silent stop, because a full sync
 *   that believed a truncated listing would sweep (delete) everything it did not see.
 */

export interface PaginateOptions {
  /** Checked before every page fetch. */
  signal?: AbortSignal;
  /** Upper bound on pages fetched in this walk (default `DEFAULT_MAX_PAGES`). */
  maxPages?: number;
  /** Token of the first page to fetch, to resume from a per-page checkpoint. */
  start?: string;
}

/** What a page fetcher returns for `paginatePages`. */
export interface PageResult<T> {
  items: readonly T[];
  next?: string | null;
}

/** One page as yielded by `paginatePages`. */
export interface Page<T> {
  items: readonly T[];
  /** The token this page was fetched with (`undefined` for the first page of a fresh walk). */
  token: string | undefined;
  /** Token of the following page, `undefined` on the last one: checkpoint it to resume after this page. */
  next: string | undefined;
  /** 1-based position of this page in the walk. */
  pageNumber: number;
}

/** 100,000 pages of 100 items is ten million items: far beyond any real listing, yet finite. */
export const DEFAULT_MAX_PAGES = 100_000;

/** Yields whole pages, for callers that checkpoint per page. The item walkers are built on it. */
export async function* paginatePages<T>(
  fetchPage: (token: string | undefined) => Promise<PageResult<T>>,
  options: PaginateOptions = {},
): AsyncGenerator<Page<T>, void, undefined> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const seen = new Set<string>();
  let token = normalizeToken(options.start);
  if (token !== undefined) seen.add(token);
  for (let pageNumber = 1; ; pageNumber += 1) {
    throwIfAborted(options.signal);
    if (pageNumber > maxPages) {
      throw new RemoteRequestError(`Remote pagination exceeded ${maxPages} pages; refusing to continue`);
    }
    const result = await fetchPage(token);
    throwIfAborted(options.signal);
    if (!result || !Array.isArray(result.items)) {
      throw new RemoteRequestError(`Remote page ${pageNumber} is malformed: it has no items array`);
    }
    const next = normalizeToken(result.next);
    if (next !== undefined) {
      if (seen.has(next)) {
        throw new RemoteRequestError(`Remote pagination is looping: page ${pageNumber} returned a next token already visited`);
      }
      seen.add(next);
    }
    yield { items: result.items, token, next, pageNumber };
    if (next === undefined) return;
    token = next;
  }
}

/**
 * Items of a listing, whatever its next-page token is called: the work-management API's
 * `next_page.offset`, a `next_cursor`. The fetcher returns it as `next`.
 */
export function paginateItems<T>(
  fetchPage: (token: string | undefined) => Promise<PageResult<T>>,
  options: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  return itemsOf(paginatePages(fetchPage, options));
}

async function* itemsOf<T>(pages: AsyncGenerator<Page<T>, void, undefined>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.items;
}

function normalizeToken(token: string | null | undefined): string | undefined {
  return token === null || token === undefined || token === '' ? undefined : token;
}
