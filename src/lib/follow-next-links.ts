/** One page of an OData collection: the URL it was read from and its JSON body. */
export interface ODataPage {
  url: string;
  body: Record<string, unknown>;
}

/** Why a walk stopped short: the chain loops, goes on past `maxPages`, or names a next page that is not a URL. */
export type NextLinkProblem = 'loop' | 'too-many-pages' | 'not-a-string' | 'not-a-url';

export class NextLinkError extends Error {
  override readonly name = 'NextLinkError';

  constructor(
    readonly problem: NextLinkProblem,
    /** The link that was not followed (for `not-a-string`, the page that named it). */
    readonly url: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The pages of an OData collection, following `@odata.nextLink` to the end as the platform does
 * (DESIGN §6.11: the one pagination walker for nextLinks; each caller brings its own `fetchPage`,
 * with its pacing, retries and errors). `fetchPage(undefined)` reads the first page, `fetchPage(link)`
 * the page a link names: an absolute link verbatim, a relative one resolved against the page that
 * gave it. A missing, null or empty link ends the walk. A page is read only once the previous one
 * was consumed, so `break` stops reading. A link already read, more than `maxPages` pages, or a
 * link that is not a string or a URL throws a `NextLinkError` naming it.
 */
export async function* followNextLinks(
  fetchPage: (link: string | undefined) => Promise<ODataPage>,
  options: { maxPages?: number } = {},
): AsyncGenerator<ODataPage, void, undefined> {
  const maxPages = options.maxPages ?? Infinity;
  const visited = new Set<string>();
  let link: string | undefined;
  for (let pages = 0; ; pages++) {
    if (link !== undefined && visited.has(link)) throw new NextLinkError('loop', link, `the @odata.nextLink chain loops back to ${link}`);
    if (pages >= maxPages) throw new NextLinkError('too-many-pages', link ?? '', `more than ${maxPages} pages; stopped`);
    const page = await fetchPage(link);
    visited.add(page.url);
    if (link !== undefined) visited.add(link);
    yield page;
    const next = page.body['@odata.nextLink'];
    if (next === undefined || next === null || next === '') return;
    if (typeof next !== 'string') throw new NextLinkError('not-a-string', page.url, `@odata.nextLink is not a string: ${JSON.stringify(next)}`);
    link = resolveLink(next, page.url);
  }
}

/** Absolute links are followed verbatim; a relative one is resolved against its page. */
function resolveLink(next: string, pageUrl: string): string {
  if (/^https?:\/\//i.test(next)) return next;
  try {
    return new URL(next, pageUrl).href;
  } catch {
    throw new NextLinkError('not-a-url', next, `@odata.nextLink is not a URL: ${next}`);
  }
}
