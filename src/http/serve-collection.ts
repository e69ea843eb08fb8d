import type { Request, Response } from 'express';
import type { CollectionSpec } from '../odata/collection-spec';
import { parseQueryOptions, type QueryOptions } from '../odata/parse-query-options';
import type { Page, PageRequest } from '../staging/read-path/page-query';
import type { StoredPage } from '../staging/read-path/packed-page';
import { baseUrl, odataContext } from './base-url';
import type { HandlerDeps } from './handler-context';

type Item = Record<string, unknown>;

export interface CollectionRoute<F extends string, Row> {
  spec: CollectionSpec<F>;
  /** The `@odata.context` entity set name (`Content`, `Users`, …). */
  set: string;
  /** Wire fields always present, whatever `$select` says. */
  required: readonly string[];
  /** Signs tokens to one collection instance, so a token from another group or file is refused. */
  scope: string;
  /**
   * The collection's own path for `@odata.nextLink`, when it names an id: always the encoded
   * form, however the request spelt the id. Default: the request's path.
   */
  path?: string;
  load(page: PageRequest<F>): Promise<Page<Row>>;
  /** The page as stored JSON, when the collection keeps its items pre-serialised: it answers pages without `$select` or `wrap`. */
  loadStored?: (page: PageRequest<F>) => Promise<StoredPage>;
  /** The wire item. */
  toWire(row: Row, selecting: boolean): Item;
  /** Wraps the items in `value` (permissions nest them in an object). */
  wrap?: (items: Item[]) => unknown;
}

function project(item: Item, select: string[] | undefined, required: readonly string[]): Item {
  if (!select) return item;
  return Object.fromEntries(Object.entries(item).filter(([k]) => required.includes(k) || select.includes(k)));
}

/** Answers one page of a collection: parse OData options, seek, map, and link the next page. */
export async function serveCollection<F extends string, Row>(
  deps: HandlerDeps,
  req: Request,
  res: Response,
  query: QueryOptions,
  route: CollectionRoute<F, Row>,
): Promise<void> {
  const { page, carried } = parseQueryOptions(
    query,
    route.spec,
    { defaultTop: deps.config.pageSizeDefault, maxTop: deps.config.pageSizeMax },
    deps.skipTokens,
    route.scope,
  );
  const stored = page.select === undefined && !route.wrap && route.loadStored ? await route.loadStored(page) : undefined;
  const result = stored ? undefined : await route.load(page);
  const base = baseUrl(req, deps.config.publicBaseUrl);
  const next = stored ? stored.next : result?.next;
  let nextLink: string | undefined;
  if (next) {
    // The token carries the crawl's options; the link repeats none of them, so its length is
    // bounded by the token's and the path's (a served id), whatever the first request sent.
    const token = deps.skipTokens.encode(route.scope, carried, next);
    nextLink = `${base}${route.path ?? req.path}?$top=${page.top}&$skiptoken=${token}`;
  }
  const context = odataContext(base, route.set);
  const link = nextLink ? `,"@odata.nextLink":${JSON.stringify(nextLink)}` : '';
  if (stored) {
    const head = Buffer.from(`{"@odata.context":${JSON.stringify(context)},"value":[`);
    const tail = Buffer.from(`]${link}}`);
    // Written directly: there is no ETag or freshness check for Express's send() to do (and Node
    // drops the body of an answer to HEAD, keeping its Content-Length). The stored items go out
    // as they came from the database, between the head and the tail, in one corked write: no
    // copy of a page's tens of kilobytes into a body buffer of its own.
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', head.length + stored.json.length + tail.length);
    res.cork();
    res.write(head);
    res.write(stored.json);
    res.end(tail);
    res.uncork();
    return;
  }
  const items = (result?.items ?? []).map((row) => project(route.toWire(row, page.select !== undefined), page.select, route.required));
  if (route.wrap) {
    res.json({ '@odata.context': context, value: route.wrap(items), ...(nextLink ? { '@odata.nextLink': nextLink } : {}) });
    return;
  }
  const value = items.map((i) => JSON.stringify(i)).join(',');
  res.type('application/json').send(`{"@odata.context":${JSON.stringify(context)},"value":[${value}]${link}}`);
}
