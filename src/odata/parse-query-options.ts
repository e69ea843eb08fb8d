import { GatewayError } from '../errors/gateway-error';
import { isStorableText, UNSTORABLE_TEXT } from '../lib/is-storable-text';
import type { CollectionSpec, OrderBy, PageRequest } from './collection-spec';
import { parseFilter } from './parse-filter';
import type { SkipTokenCodec } from './skip-token';

export interface QueryOptions {
  $top?: number | string;
  $skip?: number | string;
  $skiptoken?: string;
  $filter?: string;
  $select?: string;
  $orderby?: string;
}

export interface PageLimits {
  defaultTop: number;
  maxTop: number;
}

export interface ParsedPage<F extends string> {
  page: PageRequest<F>;
  /** The options the first request of this crawl named; carried in every `$skiptoken`. */
  echo: { orderby: string; filter: string; select: string };
}

function bad(message: string): never {
  throw new GatewayError('INPUT_VALIDATION_FAILED', message);
}

function integer(name: string, value: number | string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) bad(`${name} must be an integer of at least ${min}; got '${value}'.`);
  return n;
}

function parseOrderBy<F extends string>(input: string, spec: CollectionSpec<F>): OrderBy<F> {
  const names = Object.keys(spec.orderable);
  const m = /^\s*([A-Za-z_]+)(?:\s+(asc|desc))?\s*$/i.exec(input);
  const field = m ? spec.orderable[m[1] as string] : undefined;
  if (!m || !field) {
    bad(`Unsupported $orderby '${input}'. Accepted: one of ${names.join(', ')}, optionally followed by asc or desc.`);
  }
  return { field, direction: (m[2]?.toLowerCase() ?? 'asc') as 'asc' | 'desc' };
}

function parseSelect<F extends string>(input: string, spec: CollectionSpec<F>): string[] {
  const fields = input.split(',').map((f) => f.trim());
  for (const f of fields) {
    if (!spec.selectable.includes(f)) bad(`Unsupported $select field '${f}'. Accepted: ${spec.selectable.join(', ')}.`);
  }
  return fields;
}

/**
 * Turns OData query options into a page request. A first request may use `$skip`; later pages
 * come from the signed `$skiptoken`, which fixes `$orderby`, `$filter` and `$select` for the
 * rest of the crawl (changing them mid-crawl is refused rather than silently mixing two crawls).
 */
export function parseQueryOptions<F extends string>(
  query: QueryOptions,
  spec: CollectionSpec<F>,
  limits: PageLimits,
  tokens: SkipTokenCodec,
  collection: string,
): ParsedPage<F> {
  const requestedTop = integer('$top', query.$top, 1);
  const top = Math.min(requestedTop ?? limits.defaultTop, limits.maxTop);
  const skip = integer('$skip', query.$skip, 0) ?? 0;

  let echo = { orderby: query.$orderby ?? '', filter: query.$filter ?? '', select: query.$select ?? '' };
  let after: string[] | undefined;
  if (query.$skiptoken !== undefined) {
    const token = tokens.decode(query.$skiptoken, collection);
    if (query.$skip !== undefined) bad('$skip cannot be combined with $skiptoken; follow @odata.nextLink as given.');
    for (const [name, given, carried] of [
      ['$orderby', query.$orderby, token.o],
      ['$filter', query.$filter, token.f],
      ['$select', query.$select, token.s],
    ] as const) {
      if (given !== undefined && given !== carried) bad(`${name} cannot change while paging with $skiptoken; follow @odata.nextLink as given.`);
    }
    // Signed by this gateway, so only a key that was stored unstorable (an old SQLite row) gets here.
    if (!token.k.every(isStorableText)) bad(`Invalid $skiptoken: its position ${UNSTORABLE_TEXT}. Start again without $skiptoken.`);
    echo = { orderby: token.o, filter: token.f, select: token.s };
    after = token.k;
  }

  const defaultOrder = Object.values(spec.orderable)[0] ?? spec.key;
  const orderBy = echo.orderby ? parseOrderBy(echo.orderby, spec) : { field: defaultOrder, direction: 'asc' as const };
  const filters = echo.filter ? parseFilter(echo.filter, spec) : [];
  const select = echo.select ? parseSelect(echo.select, spec) : undefined;
  const expectedKeyLength = orderBy.field === spec.key ? 1 : 2;
  if (after && after.length !== expectedKeyLength) bad('Invalid $skiptoken: it does not match the ordering. Follow @odata.nextLink as given.');

  return {
    page: { top, skip: after ? 0 : skip, orderBy, filters, ...(after ? { after } : {}), ...(select ? { select } : {}) },
    echo,
  };
}
