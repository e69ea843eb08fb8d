import type { Knex } from 'knex';
import { isPostgres, readWorker, type Db } from './create-db';
import { compareCodePoints } from './code-point-order';
import type { PageRequest } from './page-query';
import { seekPage } from './query-page';
import { compileChecked, pageBindings, pageShape } from './prepared-page-query';
import { runCompiled, type CompiledStatement } from './compiled-statement';

/** A page whose items the database assembled from their stored, pre-serialised JSON. */
export interface StoredPage {
  /** The items' JSON joined by commas, as UTF-8 bytes (what goes between `[` and `]`). */
  json: Buffer;
  count: number;
  /** Keyset position after the last item, when more rows follow. */
  next?: string[];
}

interface AggregateRow {
  /** Bytes (SQLite: a blob; Postgres: text, sent as UTF-8 bytes by the read worker), or text from the main thread's Postgres pool (a bytea would come as hex, twice the size, parsed in JS). */
  items: Buffer | string | null;
  /** The byte length of each row's JSON, in page order, comma-separated. */
  lengths: string | null;
  n: number | string;
  stored: number | string;
  /** Per ordering column (`k0`, `k1`): its values in page order, as a JSON array. */
  [key: `k${number}`]: string | string[] | null;
}

interface CompiledShape {
  statement: CompiledStatement;
  width: number;
}

/** Sign of the comparison of rows `a` and `b` by their keyset columns, in code point order as the database sorts. */
function compareRows(columns: ReadonlyArray<readonly string[]>, a: number, b: number): number {
  for (const values of columns) {
    const c = compareCodePoints(values[a] as string, values[b] as string);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * Reads keyset pages of `table` as a single aggregate: the database concatenates the rows'
 * stored JSON (`jsonColumn`) into one byte string and lists the rows' ordering values and JSON
 * lengths beside it. A page of a hundred items then costs one row's worth of driver work, instead
 * of a hundred objects and strings built, joined and encoded again for the socket.
 *
 * The SQL depends only on the page's shape (ordering, filter fields and operators, whether it
 * seeks or skips), so knex builds it once per shape; later pages of that shape bind their values
 * to the cached text. The first build of a shape checks that knex bound the values in the order
 * `pageBindings` lists them, and fails loudly if not (the property tests cover every shape).
 */
export class StoredPageReader<F extends string> {
  private readonly compiled = new Map<string, CompiledShape>();

  constructor(
    private readonly db: Db,
    private readonly table: string,
    private readonly columns: Readonly<Record<F, string>>,
    private readonly key: F,
    private readonly jsonColumn: string,
    private readonly coveredJson?: string,
  ) {}

  /**
   * One page, or undefined when a row on it (or the row after it) has no stored JSON, or when the
   * database did not aggregate in page order (neither SQL dialect promises to, so the ordering
   * values are checked rather than trusted); the caller then reads the page row by row.
   */
  async read(page: PageRequest<F>): Promise<StoredPage | undefined> {
    const bindings = pageBindings(page);
    const shape = pageShape(page);
    let compiled = this.compiled.get(shape);
    if (!compiled) {
      const { query, width } = this.build(page);
      compiled = { statement: compileChecked(query, bindings), width };
      this.compiled.set(shape, compiled);
    }
    return this.decode(await this.run(compiled.statement, bindings), page, compiled.width);
  }

  /**
   * Runs compiled SQL in the database's read worker (off the event loop: the server thread only
   * receives the row, the page's JSON as bytes), or, without one (SQLite's `:memory:`) or once it
   * failed, here, as any compiled statement runs on the server thread (`runCompiled`). knex's
   * `query` event is emitted either way, so query logging and plan capture see it.
   */
  private async run(statement: CompiledStatement, bindings: ReadonlyArray<string | number>): Promise<AggregateRow[]> {
    const worker = readWorker(this.db);
    if (worker?.usable) {
      const sql = isPostgres(this.db) ? statement.native : statement.sql;
      this.db.emit('query', { sql, bindings, method: 'select' });
      try {
        return (await worker.run({ sql, bindings, name: statement.name, bytes: ['items'] })) as unknown as AggregateRow[];
      } catch (error) {
        // A failing query fails the request as it would on the main connection; a worker that
        // died is not used again and the query runs here instead.
        if (worker.usable) throw error;
      }
    }
    return runCompiled<AggregateRow>(this.db, statement, bindings, 'select');
  }

  private build(page: PageRequest<F>): { query: Knex.QueryBuilder; width: number } {
    const db = this.db;
    const inner = db(this.table);
    const orderColumns = seekPage(inner, page, this.columns, this.key, page.top + 1);
    inner.select([...orderColumns, this.itemJson()]);
    const pg = isPostgres(db);
    const items = pg ? `string_agg(??, ',')` : `cast(group_concat(??, ',') as blob)`;
    const lengths = pg ? `string_agg(octet_length(??)::text, ',')` : `group_concat(octet_length(??), ',')`;
    const keys = orderColumns.map((_, i) => (pg ? `json_agg(??) as k${i}` : `json_group_array(??) as k${i}`)).join(', ');
    const query = db
      .select(
        db.raw(`${items} as items, ${lengths} as lengths, ${keys}, count(*) as n, count(??) as stored`, [this.jsonColumn, this.jsonColumn, ...orderColumns, this.jsonColumn]),
      )
      .from(inner.as('page'));
    return { query, width: orderColumns.length };
  }

  /**
   * The item's JSON as the page reads it: `jsonColumn`, or, with a `coveredJson` copy (which the
   * list indexes include, null where the JSON is too long for them), that copy, and the table's
   * own column only where the copy is null, so a page of short items is an index-only scan.
   */
  private itemJson(): string | Knex.Raw {
    if (!this.coveredJson) return this.jsonColumn;
    const { table, key, jsonColumn } = this;
    const keyColumn = this.columns[key];
    return this.db.raw(`coalesce(??, (select ?? from ?? as "whole" where ?? = ??)) as ??`, [
      this.coveredJson,
      `whole.${jsonColumn}`,
      table,
      `whole.${keyColumn}`,
      `${table}.${keyColumn}`,
      jsonColumn,
    ]);
  }

  private decode(rows: AggregateRow[], page: PageRequest<F>, width: number): StoredPage | undefined {
    const row = rows[0];
    const n = Number(row?.n ?? 0);
    if (!row || n === 0) return { json: Buffer.alloc(0), count: 0 };
    if (page.top < 1) return undefined;
    if (Number(row.stored) !== n || !row.items || !row.lengths) return undefined;
    const items = typeof row.items === 'string' ? Buffer.from(row.items, 'utf8') : row.items;
    const columns: string[][] = [];
    for (let c = 0; c < width; c += 1) {
      const values = row[`k${c}`];
      const parsed = (typeof values === 'string' ? JSON.parse(values) : values) as unknown[] | null;
      if (!parsed || parsed.length !== n) return undefined;
      columns.push(parsed.map(String));
    }
    const lengths = row.lengths.split(',').map(Number);
    if (lengths.length !== n) return undefined;

    const sign = page.orderBy.direction === 'asc' ? 1 : -1;
    let bytes = n - 1;
    for (let i = 0; i < n; i += 1) {
      bytes += lengths[i] as number;
      if (i > 0 && sign * compareRows(columns, i - 1, i) >= 0) return undefined;
    }
    if (bytes !== items.length) return undefined;

    if (n <= page.top) return { json: items, count: n };
    // The extra row only says that more follow: cut it (and its comma) off the end.
    const extra = lengths[n - 1] as number;
    const last = page.top - 1;
    return { json: items.subarray(0, items.length - extra - 1), count: page.top, next: columns.map((values) => values[last] as string) };
  }
}
