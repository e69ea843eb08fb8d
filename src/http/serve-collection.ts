import type { Request, Response } from 'express';
import type { CollectionSpec } from '../odata/collection-spec';
import { parseQueryOptions, type QueryOptions } from '../odata/parse-query-options';
import type { Page, PageRequest } from '../staging/page-query';
import { baseUrl, odataContext } from './base-url';
import type { HandlerDeps } from './handler-context';

export interface CollectionRoute<F extends string, Row> {
  spec: CollectionSpec<F>;
  /** The `@odata.context` entity set name (`Content`, `Users`, …). */
  set: string;
  /** Wire fields always present, whatever `$select` says. */
  required: readonly string[];
  /** Signs tokens to one collection instance, so a token from another group or file is refused. */
  scope: string;
  load(page: PageRequest<F>): Promise<Page<Row>>;
  toWire(row: Row, base: string): Record<string, unknown>;
  /** Wraps the items in `value` (permissions nest them in an object). */
  wrap?: (items: Array<Record<string, unknown>>) => unknown;
}

function project(item: Record<string, unknown>, select: string[] | undefined, required: readonly string[]): Record<string, unknown> {
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
  const { page, echo } = parseQueryOptions(
    query,
    route.spec,
    { defaultTop: deps.config.pageSizeDefault, maxTop: deps.config.pageSizeMax },
    deps.skipTokens,
    route.scope,
  );
  const result = await route.load(page);
  const base = baseUrl(req, deps.config.publicBaseUrl);
  const items = result.items.map((row) => project(route.toWire(row, base), page.select, route.required));
  const body: Record<string, unknown> = {
    '@odata.context': odataContext(base, route.set),
    value: route.wrap ? route.wrap(items) : items,
  };
  if (result.next) {
    const token = deps.skipTokens.encode({ v: 1, c: route.scope, o: echo.orderby, f: echo.filter, s: echo.select, k: result.next });
    body['@odata.nextLink'] = `${base}${req.path}?$top=${page.top}&$skiptoken=${token}`;
  }
  res.json(body);
}
