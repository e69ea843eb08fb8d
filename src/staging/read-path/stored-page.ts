import type { Knex } from 'knex';
import { answerBound, isPostgres, readWorker, type Db } from '../database/create-db';
import type { PageRequest } from './page-query';
import { seekPage } from './query-page';
import { compileChecked, pageBindings, pageShape } from './prepared-page-query';
import { runCompiled, type CompiledStatement } from './compiled-statement';
import { pageFromPacked, type PackedPage, type StoredPage } from './packed-page';
import { pgPooledTextRows } from './pg-pooled-query';
import { pageFromRawRows } from './raw-page';

/** SQLite's answer: the page aggregated into one row. */
interface AggregateRow {
  /** The rows' JSON joined by commas, as bytes (a blob). */
  items: Buffer | null;
  /** The byte length of each row's JSON, in page order, comma-separated. */
  lengths: string | null;
  n: number;
  stored: number;
  /** Per ordering column (`k0`, `k1`): its values in page order, as a JSON array. */
  [key: `k${number}`]: string | null;
}

interface CompiledShape {
  statement: CompiledStatement;
  /** The ordering columns, as the rows name them. */
  orderColumns: string[];
  /** SQLite: the page's plain rows (ordering values, then the JSON), for a page whose aggregate came out of order. */
  rows?: CompiledStatement;
}

/** The column a Postgres page row holds its item's JSON in. */
const ITEM = 'page_item';

/**
 * Reads keyset pages of `table` from the rows' stored JSON (`jsonColumn`) as one byte string (a
 * `StoredPage`): the server thread then writes a page of a hundred items as one buffer, instead of
 * a hundred objects and strings built, joined and encoded again for the socket.
 *
 * SQLite aggregates the page into one row itself, in its read worker (off the event loop), with
 * the rows' ordering values and JSON lengths beside the bytes (`PackedPage`, checked before use).
 * Postgres sends the page's rows, as a named prepared statement on one of knex's connections, each
 * row an array of the text it sent (`pgPooledTextRows`), and they are joined here
 * (`pageFromRawRows`): a Postgres backend builds a 43 KB aggregate at a tenth of the rate it sends
 * the same rows (under pgbench, 10 clients on the 2-core machine: 971 against 9,279 pages a
 * second), and a worker thread of its own for the driver cost more CPU in all (its messages, its
 * garbage) than it took off the event loop (kit/bench/HISTORY.md). The ordering columns are text
 * (`collate "C"`), so the position Postgres sends is the value knex's own reads would give.
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
   * One page. Every row holds its stored JSON (the writers build it; a migration filled the rows
   * written before): a served row without it fails the page. SQLite's aggregate is not promised to
   * keep the rows in page order, so its ordering values are checked rather than trusted, and a page
   * that came out of order (or with a row it cannot account for) is read again as plain rows.
   */
  async read(page: PageRequest<F>): Promise<StoredPage> {
    const bindings = pageBindings(page);
    const shape = pageShape(page);
    let compiled = this.compiled.get(shape);
    if (!compiled) {
      const { query, orderColumns } = this.build(page);
      const rows = isPostgres(this.db) ? undefined : compileChecked(this.rowsQuery(page).query, bindings);
      compiled = { statement: compileChecked(query, bindings), orderColumns, ...(rows ? { rows } : {}) };
      this.compiled.set(shape, compiled);
    }
    if (isPostgres(this.db)) return this.readRows(compiled, bindings, page);
    const packed = pageFromPacked(await this.readAggregate(compiled, bindings), page);
    return packed ?? this.readPlainRows(compiled, bindings, page);
  }

  /** Postgres: the page's rows as text, on one of knex's connections (the transaction's own, when `db` is one). */
  private async readRows({ statement, orderColumns }: CompiledShape, bindings: Array<string | number>, page: PageRequest<F>): Promise<StoredPage> {
    this.db.emit('query', { sql: statement.native, bindings, method: 'select' });
    const rows = await pgPooledTextRows(this.db, statement.name, statement.native, bindings);
    return pageFromRawRows(rows, orderColumns.length, page.top);
  }

  /** SQLite: the page's plain rows, in the statement's order, joined as Postgres's are. */
  private async readPlainRows({ rows, orderColumns }: CompiledShape, bindings: Array<string | number>, page: PageRequest<F>): Promise<StoredPage> {
    if (!rows) throw new Error('no plain-rows statement for this page');
    const read = await runCompiled<Record<string, unknown>>(this.db, rows, bindings, 'select');
    const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
    return pageFromRawRows(
      read.map((row) => [...orderColumns, this.jsonColumn].map((c) => text(row[c]))),
      orderColumns.length,
      page.top,
    );
  }

  /** SQLite: the page as one aggregate row, from the read worker (off the event loop) or, without one (`:memory:`), here. */
  private async readAggregate({ statement, orderColumns }: CompiledShape, bindings: Array<string | number>): Promise<PackedPage | undefined> {
    const worker = readWorker(this.db);
    let rows: AggregateRow[] | undefined;
    if (worker?.usable) {
      this.db.emit('query', { sql: statement.sql, bindings, method: 'select' });
      try {
        rows = (await worker.run({ sql: statement.sql, bindings }, answerBound(this.db))) as unknown as AggregateRow[];
      } catch (error) {
        // A failing query fails the request as it would on the main connection; a worker that
        // died is not used again and the query runs here instead.
        if (worker.usable) throw error;
      }
    }
    rows ??= await runCompiled<AggregateRow>(this.db, statement, bindings, 'select');
    return unpackAggregate(rows[0], orderColumns.length);
  }

  /** The page's rows: its ordering values, then the JSON (on Postgres as `ITEM`, from the covered copy where there is one). */
  private rowsQuery(page: PageRequest<F>): { query: Knex.QueryBuilder; orderColumns: string[] } {
    const query = this.db(this.table);
    const orderColumns = seekPage(query, page, this.columns, this.key, page.top + 1);
    query.select([...orderColumns, isPostgres(this.db) ? this.itemJson(ITEM) : this.jsonColumn]);
    return { query, orderColumns };
  }

  /** The page's statement: on Postgres its rows, on SQLite their aggregate. */
  private build(page: PageRequest<F>): { query: Knex.QueryBuilder; orderColumns: string[] } {
    const db = this.db;
    const { query: inner, orderColumns } = this.rowsQuery(page);
    if (isPostgres(db)) return { query: inner, orderColumns };
    const keys = orderColumns.map((_, i) => `json_group_array(??) as k${i}`).join(', ');
    const query = db
      .select(
        db.raw(`cast(group_concat(??, ',') as blob) as items, group_concat(octet_length(??), ',') as lengths, ${keys}, count(*) as n, count(??) as stored`, [
          this.jsonColumn,
          this.jsonColumn,
          ...orderColumns,
          this.jsonColumn,
        ]),
      )
      .from(inner.as('page'));
    return { query, orderColumns };
  }

  /**
   * The item's JSON as the page reads it, named `as`: `jsonColumn`, or, with a `coveredJson` copy
   * (which the list indexes include, null where the JSON is too long for them), that copy, and the
   * table's own column only where the copy is null, so a page of short items is an index-only scan.
   */
  private itemJson(as: string): Knex.Raw {
    const { db, table, key, jsonColumn } = this;
    if (!this.coveredJson) return db.raw('?? as ??', [jsonColumn, as]);
    const keyColumn = this.columns[key];
    return db.raw(`coalesce(??, (select ?? from ?? as "whole" where ?? = ??)) as ??`, [
      this.coveredJson,
      `whole.${jsonColumn}`,
      table,
      `whole.${keyColumn}`,
      `${table}.${keyColumn}`,
      as,
    ]);
  }
}

/** SQLite's aggregate row as a `PackedPage` (undefined when a column of it is missing or malformed). */
function unpackAggregate(row: AggregateRow | undefined, width: number): PackedPage | undefined {
  const n = Number(row?.n ?? 0);
  if (!row || n === 0) return { items: Buffer.alloc(0), lengths: [], keys: [], n: 0, stored: 0 };
  if (!row.items || !row.lengths) return undefined;
  const keys: string[][] = [];
  for (let c = 0; c < width; c += 1) {
    const values = JSON.parse(row[`k${c}`] ?? 'null') as unknown[] | null;
    if (!Array.isArray(values)) return undefined;
    keys.push(values.map(String));
  }
  return { items: row.items, lengths: row.lengths.split(',').map(Number), keys, n, stored: Number(row.stored) };
}
