import type { ListingSummary } from '../crawl/crawl-record';
import { fail, warn, type Finding } from '../finding';
import { outcome, plural, type CheckInput } from './check-input';

function allListings(input: CheckInput): ListingSummary[] {
  const out = [...input.crawl.listings];
  if (input.second) out.push(input.second.files.listing, input.second.users.listing, input.second.groups.listing);
  if (input.oddTop) out.push(input.oddTop.listing);
  return out;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function difference(a: Iterable<string>, b: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const x of a) if (!b.has(x)) out.push(x);
  return out;
}

function compareSets(check: string, what: string, url: string, expected: readonly string[], actual: readonly string[], how: string): Finding[] {
  const e = new Set(expected);
  const a = new Set(actual);
  const missing = difference(e, a);
  const extra = difference(a, e);
  const out: Finding[] = [];
  if (missing.length)
    out.push(
      fail(check, `${how}: ${plural(missing.length, what)} of the first crawl ${missing.length === 1 ? 'is' : 'are'} missing.`, {
        url,
        field: 'id',
        value: missing.slice(0, 20).join(', '),
      }),
    );
  if (extra.length)
    out.push(fail(check, `${how}: ${plural(extra.length, what)} not in the first crawl appeared.`, { url, field: 'id', value: extra.slice(0, 20).join(', ') }));
  return out;
}

type OddTopCrawl = NonNullable<CheckInput['oddTop']>;
type SecondCrawl = NonNullable<CheckInput['second']>;

function duplicateIds(listings: readonly ListingSummary[]): Finding[] {
  return listings.flatMap((l) =>
    l.duplicates.map((d) =>
      fail('paging.no-duplicates', `${l.collection}: '${d.key}' is served again on a later page.`, { url: d.url, field: 'id', value: d.key }),
    ),
  );
}

/** Every nextLink is an absolute URL (the platform follows it verbatim), on the gateway's own origin. */
function nextLinkFindings(listings: readonly ListingSummary[], origin: string | undefined): Finding[] {
  const found: Finding[] = [];
  for (const l of listings) {
    for (const link of l.nextLinks) {
      if (!/^https?:\/\/[^/?#]+/i.test(link))
        found.push(
          fail('paging.absolute-next-link', `${l.collection}: @odata.nextLink is not an absolute URL; the platform follows it verbatim.`, {
            url: l.firstUrl,
            field: '@odata.nextLink',
            value: link,
          }),
        );
      else if (origin && originOf(link) !== origin)
        found.push(
          warn(
            'paging.absolute-next-link',
            `${l.collection}: @odata.nextLink points at another origin (${originOf(link) ?? '?'}); check PUBLIC_BASE_URL or your proxy settings.`,
            { url: l.firstUrl, field: '@odata.nextLink', value: link },
          ),
        );
    }
  }
  return found;
}

function pagingLoops(listings: readonly ListingSummary[]): Finding[] {
  return listings.flatMap((l) =>
    l.loop
      ? [
          fail('paging.terminates', `${l.collection}: a nextLink points back to a page already read; the crawl would never end.`, {
            url: l.loop.url,
            field: '@odata.nextLink',
          }),
        ]
      : [],
  );
}

/** `$top` is a maximum: no page of the odd-`$top` crawl is longer. */
function pagesOverTop(oddTop: OddTopCrawl): Finding[] {
  const l = oddTop.listing;
  if (l.requestedTop === undefined || l.maxPageItems <= l.requestedTop) return [];
  return [
    warn('paging.top-is-maximum', `$top=${l.requestedTop} returned a page of ${l.maxPageItems} items; $top is a maximum.`, {
      url: l.firstUrl,
      field: '$top',
      value: l.maxPageItems,
    }),
  ];
}

/** A crawl of the files with an odd `$top` lists the same files as the first crawl. */
function oddTopFindings(input: CheckInput, oddTop: OddTopCrawl): Finding[] {
  const l = oddTop.listing;
  if (l.failure)
    return [
      fail('paging.odd-top', `Listing with $top=${l.requestedTop ?? '?'} failed: ${l.failure.message}.`, {
        url: l.failure.url,
        field: 'status',
        value: l.failure.status,
      }),
    ];
  return compareSets(
    'paging.odd-top',
    'file',
    l.firstUrl,
    input.crawl.files.map((f) => f.listing.id),
    oddTop.files.map(([id]) => id),
    `With $top=${l.requestedTop ?? '?'}`,
  );
}

/** A second crawl lists the same files, users and groups as the first. */
function stableCrawlFindings(input: CheckInput, s: SecondCrawl): Finding[] {
  const stable: Finding[] = [];
  for (const l of [s.files.listing, s.users.listing, s.groups.listing]) {
    if (l.failure)
      stable.push(
        fail('paging.stable-crawls', `The second crawl of ${l.collection} failed: ${l.failure.message}.`, {
          url: l.failure.url,
          field: 'status',
          value: l.failure.status,
        }),
      );
  }
  const firstUsers = input.crawl.users.map((u) => u.id);
  const firstGroups = input.crawl.groups.map((g) => g.id);
  if (!s.files.listing.failure)
    stable.push(
      ...compareSets(
        'paging.stable-crawls',
        'file',
        s.files.listing.firstUrl,
        input.crawl.files.map((f) => f.listing.id),
        s.files.files.map(([id]) => id),
        'Second crawl of /v1/files',
      ),
    );
  if (!s.users.listing.failure)
    stable.push(...compareSets('paging.stable-crawls', 'user', s.users.listing.firstUrl, firstUsers, s.users.ids, 'Second crawl of /v1/users'));
  if (!s.groups.listing.failure)
    stable.push(...compareSets('paging.stable-crawls', 'group', s.groups.listing.firstUrl, firstGroups, s.groups.ids, 'Second crawl of /v1/groups'));
  return stable;
}

/** The outcomes of the odd-`$top` crawl (none when it was skipped). */
function oddTopOutcomes(input: CheckInput): Finding[] {
  const oddTop = input.oddTop;
  if (!oddTop) return [];
  const top = oddTop.listing.requestedTop ?? '?';
  return [
    ...outcome('paging.top-is-maximum', pagesOverTop(oddTop), `no page exceeded $top=${top}`),
    ...outcome(
      'paging.odd-top',
      oddTopFindings(input, oddTop),
      `$top=${top} crawls the same ${plural(input.crawl.files.length, 'file')} in ${plural(oddTop.listing.pages, 'page')}`,
    ),
  ];
}

/** Paging: duplicates, absolute links, termination, $top as a maximum, odd $top and repeat crawls. */
export function pagingChecks(input: CheckInput): Finding[] {
  const listings = allListings(input);
  const linkCount = listings.reduce((n, l) => n + l.nextLinks.length, 0);
  const pages = listings.reduce((n, l) => n + l.pages, 0);
  return [
    ...outcome('paging.no-duplicates', duplicateIds(listings), `no id served twice across ${plural(pages, 'page')} of ${plural(listings.length, 'listing')}`),
    ...outcome(
      'paging.absolute-next-link',
      nextLinkFindings(listings, originOf(input.crawl.baseUrl)),
      linkCount ? `all ${plural(linkCount, 'nextLink')} are absolute URLs on the gateway's origin` : 'no listing had a second page (nothing to check)',
    ),
    ...outcome('paging.terminates', pagingLoops(listings), 'every listing ends'),
    ...oddTopOutcomes(input),
    ...(input.second ? outcome('paging.stable-crawls', stableCrawlFindings(input, input.second), 'a second crawl lists the same files, users and groups') : []),
  ];
}
