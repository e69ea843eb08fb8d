import type { Knex } from 'knex';
import type { Page, PageRequest } from './page-query';

const SQL_OPS = { eq: '=', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;

/**
 * Narrows `query` to one keyset page: filters, then a seek past the last row served
 * (`(order, key) > (…)`), then the ordering and `limit` rows. With an index on (order, key) every
 * page, however deep, is a seek plus a short scan. Returns the ordering columns, key last.
 */
export function seekPage<F extends string>(
  query: Knex.QueryBuilder,
  page: PageRequest<F>,
  columns: Readonly<Record<F, string>>,
  key: F,
  limit: number,
): string[] {
  for (const f of page.filters) query.where(columns[f.field], SQL_OPS[f.op], f.value);

  const keyColumn = columns[key];
  const orderColumns = page.orderBy.field === key ? [keyColumn] : [columns[page.orderBy.field], keyColumn];
  const dir = page.orderBy.direction;
  if (page.after) {
    const cmp = dir === 'asc' ? '>' : '<';
    const lhs = orderColumns.map(() => '??').join(', ');
    const rhs = orderColumns.map(() => '?').join(', ');
    query.whereRaw(`(${lhs}) ${cmp} (${rhs})`, [...orderColumns, ...page.after]);
  }
  for (const c of orderColumns) query.orderBy(c, dir);
  query.limit(limit);
  if (page.skip > 0) query.offset(page.skip);
  return orderColumns;
}

/** Runs one keyset page, reading `top + 1` rows so the caller knows whether more follow without counting. */
export async function queryPage<Row, F extends string = string>(
  query: Knex.QueryBuilder,
  page: PageRequest<F>,
  columns: Readonly<Record<F, string>>,
  key: F,
): Promise<Page<Row>> {
  const orderColumns = seekPage(query, page, columns, key, page.top + 1);
  return pageFromRows((await query) as Array<Row & Record<string, unknown>>, page.top, orderColumns);
}

/** A page from the `top + 1` rows read for it: the extra row only says that more follow. */
export function pageFromRows<Row extends Record<string, unknown>>(rows: Row[], top: number, orderColumns: readonly string[]): Page<Row> {
  const more = rows.length > top;
  const items = more ? rows.slice(0, top) : rows;
  const last = items[items.length - 1];
  if (!more || !last) return { items };
  return { items, next: orderColumns.map((c) => String(last[c.split('.').pop() as string])) };
}
