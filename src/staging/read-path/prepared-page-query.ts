import type { Knex } from 'knex';
import type { Db } from '../database/create-db';
import { compileStatement, runCompiled, type CompiledStatement } from './compiled-statement';
import type { Page, PageRequest } from './page-query';
import { pageFromRows, seekPage } from './query-page';

/**
 * What a page's SQL depends on besides its values: the ordering, the filter fields and
 * operators, whether it seeks or skips. Pages of one shape share one statement.
 */
export function pageShape<F extends string>(page: PageRequest<F>): string {
  const filters = page.filters.map((f) => `${f.field} ${f.op}`).join(',');
  return `${page.orderBy.field} ${page.orderBy.direction}|${filters}|${page.after ? 'seek' : ''}|${page.skip > 0 ? 'skip' : ''}`;
}

/** The values `seekPage` binds, in its order: filters, seek position, limit (`top + 1`), offset. */
export function pageBindings<F extends string>(page: PageRequest<F>): Array<string | number> {
  return [...page.filters.map((f) => f.value), ...(page.after ?? []), page.top + 1, ...(page.skip > 0 ? [page.skip] : [])];
}

/**
 * Builds a statement for `query` narrowed to `page` and checks that knex bound the values in the
 * order `values` then `pageBindings` lists them; fails loudly if not (a knex change would
 * otherwise bind a page's values to the wrong placeholders).
 */
export function compilePage<F extends string>(
  query: Knex.QueryBuilder,
  values: readonly Knex.Value[],
  page: PageRequest<F>,
  columns: Readonly<Record<F, string>>,
  key: F,
): { statement: CompiledStatement; orderColumns: string[] } {
  const orderColumns = seekPage(query, page, columns, key, page.top + 1);
  return { statement: compileChecked(query, [...values, ...pageBindings(page)]), orderColumns };
}

/** `query`'s statement, once knex is seen to bind exactly `expected`, in that order (else it throws). */
export function compileChecked(query: Knex.QueryBuilder, expected: readonly Knex.Value[]): CompiledStatement {
  const built = query.toSQL();
  if (JSON.stringify(built.bindings) !== JSON.stringify(expected)) {
    throw new Error(`knex bound ${JSON.stringify(built.bindings)} where ${JSON.stringify(expected)} was expected; pageBindings no longer matches seekPage`);
  }
  return compileStatement(built);
}

/**
 * Keyset pages of one query, parameterised by `values` (a file's id, say), whose SQL is built once
 * per page shape and run as a compiled statement (`runCompiled`): a page of a small collection then
 * costs no query building, and on Postgres no parsing or planning after a connection's first.
 */
export class PreparedPageQuery<Row, F extends string> {
  private readonly compiled = new Map<string, { statement: CompiledStatement; orderColumns: string[] }>();

  constructor(
    private readonly db: Db,
    /** The query before paging, with `values` bound in order (the first bindings of its SQL). */
    private readonly base: (values: readonly string[]) => Knex.QueryBuilder,
    private readonly columns: Readonly<Record<F, string>>,
    private readonly key: F,
  ) {}

  async read(values: readonly string[], page: PageRequest<F>): Promise<Page<Row>> {
    const shape = pageShape(page);
    let compiled = this.compiled.get(shape);
    if (!compiled) {
      compiled = compilePage(this.base(values), values, page, this.columns, this.key);
      this.compiled.set(shape, compiled);
    }
    const rows = await runCompiled<Row & Record<string, unknown>>(this.db, compiled.statement, [...values, ...pageBindings(page)], 'select');
    return pageFromRows(rows, page.top, compiled.orderColumns);
  }
}
