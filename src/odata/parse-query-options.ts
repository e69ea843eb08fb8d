import { GatewayError } from '../errors/gateway-error';
import { isStorableText, UNSTORABLE_TEXT } from '../lib/is-storable-text';
import type { CollectionSpec, FilterClause, OrderBy, PageRequest } from './collection-spec';
import { parseFilter } from './parse-filter';
import { reduceFilter } from './reduce-filter';
import type { CarriedOptions, SkipTokenCodec } from './skip-token';

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
  /** The options of this crawl in canonical form; carried in every `$skiptoken`. */
  carried: CarriedOptions;
}

/** A crawl's options, parsed, with their canonical form. */
interface Options<F extends string> {
  orderBy: OrderBy<F>;
  filters: Array<FilterClause<F>>;
  select?: string[];
  carried: CarriedOptions;
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

/** `$orderby` with its canonical text (`<field> asc|desc`); none is the first orderable field, ascending. */
function parseOrderBy<F extends string>(input: string, spec: CollectionSpec<F>): { orderBy: OrderBy<F>; text: string } {
  const names = Object.keys(spec.orderable);
  if (input === '') {
    const first = names[0];
    return first === undefined
      ? { orderBy: { field: spec.key, direction: 'asc' }, text: '' }
      : { orderBy: { field: spec.orderable[first] as F, direction: 'asc' }, text: `${first} asc` };
  }
  const m = /^\s*([A-Za-z_]+)(?:\s+(asc|desc))?\s*$/i.exec(input);
  const field = m ? spec.orderable[m[1] as string] : undefined;
  if (!m || !field) {
    bad(`Unsupported $orderby '${input}'. Accepted: one of ${names.join(', ')}, optionally followed by asc or desc.`);
  }
  const direction = (m[2]?.toLowerCase() ?? 'asc') as 'asc' | 'desc';
  return { orderBy: { field, direction }, text: `${m[1]} ${direction}` };
}

/** `$select`'s fields, each once, in the collection's order ('' and undefined: every field). */
function parseSelect<F extends string>(input: string, spec: CollectionSpec<F>): string[] | undefined {
  if (input === '') return undefined;
  const fields = input.split(',').map((f) => f.trim());
  for (const f of fields) {
    if (!spec.selectable.includes(f)) bad(`Unsupported $select field '${f}'. Accepted: ${spec.selectable.join(', ')}.`);
  }
  return spec.selectable.filter((f) => fields.includes(f));
}

function withCarried<F extends string>(
  orderBy: { orderBy: OrderBy<F>; text: string },
  filters: Array<FilterClause<F>>,
  select: string[] | undefined,
): Options<F> {
  return {
    orderBy: orderBy.orderBy,
    filters,
    ...(select ? { select } : {}),
    carried: { orderby: orderBy.text, select: select?.join(',') ?? '', filter: filters.map((c) => [c.field, c.op, c.value] as const) },
  };
}

/** Options as a request (or a first-format token) spells them. */
function readOptions<F extends string>(given: { orderby: string; filter: string; select: string }, spec: CollectionSpec<F>): Options<F> {
  return withCarried(parseOrderBy(given.orderby, spec), given.filter ? reduceFilter(parseFilter(given.filter, spec)) : [], parseSelect(given.select, spec));
}

/** Options a token carries in canonical form, checked against the collection (the token is signed, but its collection may have changed since). */
function carriedOptions<F extends string>(carried: CarriedOptions, spec: CollectionSpec<F>): Options<F> {
  const fields = Object.values(spec.filterable);
  const filters = carried.filter.map(([name, op, value]): FilterClause<F> => {
    const field = fields.find((f) => f.field === name);
    if (!field || !field.ops.includes(op)) bad('Invalid $skiptoken: its $filter does not fit this collection. Start again without $skiptoken.');
    if (!isStorableText(value)) bad(`Invalid $skiptoken: a $filter value ${UNSTORABLE_TEXT}. Start again without $skiptoken.`);
    return { field: field.field, op, value };
  });
  return withCarried(parseOrderBy(carried.orderby, spec), filters, parseSelect(carried.select, spec));
}

const sameCarried = (a: CarriedOptions, b: CarriedOptions, part: keyof CarriedOptions): boolean => JSON.stringify(a[part]) === JSON.stringify(b[part]);

/**
 * Turns OData query options into a page request. A first request may use `$skip`; later pages
 * come from the signed `$skiptoken`, which fixes `$orderby`, `$filter` and `$select` for the
 * rest of the crawl (changing them mid-crawl is refused rather than silently mixing two crawls;
 * repeating them, in any spelling of the same options, is not a change). The token carries them
 * in canonical form, so the nextLink never repeats them: however long the first request's
 * options were, the link stays the length of a token.
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
  const given = { orderby: query.$orderby ?? '', filter: query.$filter ?? '', select: query.$select ?? '' };

  let options: Options<F>;
  let after: string[] | undefined;
  if (query.$skiptoken !== undefined) {
    const token = tokens.decode(query.$skiptoken, collection);
    if (query.$skip !== undefined) bad('$skip cannot be combined with $skiptoken; follow @odata.nextLink as given.');
    options = token.format === 'canonical' ? carriedOptions(token.options, spec) : readOptions(token.options, spec);
    const repeated = readOptions(given, spec).carried;
    for (const [name, value, part] of [
      ['$orderby', query.$orderby, 'orderby'],
      ['$filter', query.$filter, 'filter'],
      ['$select', query.$select, 'select'],
    ] as const) {
      if (value !== undefined && !sameCarried(repeated, options.carried, part))
        bad(`${name} cannot change while paging with $skiptoken; follow @odata.nextLink as given.`);
    }
    // Signed by this gateway, so only a key that was stored unstorable (an old SQLite row) gets here.
    if (!token.after.every(isStorableText)) bad(`Invalid $skiptoken: its position ${UNSTORABLE_TEXT}. Start again without $skiptoken.`);
    after = token.after;
  } else {
    options = readOptions(given, spec);
  }

  const expectedKeyLength = options.orderBy.field === spec.key ? 1 : 2;
  if (after && after.length !== expectedKeyLength) bad('Invalid $skiptoken: it does not match the ordering. Follow @odata.nextLink as given.');

  const { orderBy, filters, select, carried } = options;
  return {
    page: { top, skip: after ? 0 : skip, orderBy, filters, ...(after ? { after } : {}), ...(select ? { select } : {}) },
    carried,
  };
}
