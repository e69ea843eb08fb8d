import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { chunks } from '../../lib/chunks';
import { isPostgres } from '../database/create-db';
import { withPooledConnection } from '../database/with-pooled-connection';

/** Rows per Postgres `VALUES` statement: 200 rows of the widest table bind about 5,400 values, far under its limit. */
export const ROWS_PER_STATEMENT = 200;
/** Rows per Postgres statement that binds them as one JSON document (one parameter, whatever the count). */
export const JSON_ROWS_PER_STATEMENT = 5000;

/** What a row whose key is already staged does: replace the stored values, or keep them. */
export type OnConflict = 'merge' | 'ignore';

/** SQL text by statement shape (table, columns, row count, conflict handling): a handful of shapes repeat. */
const texts = new Map<string, string>();

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** `on conflict (…) do …`: a `merge` replaces every column but the key's. */
function conflictClause(columns: readonly string[], conflict: readonly string[], onConflict: OnConflict): string {
  const keys = new Set(conflict);
  const updates = columns.filter((c) => !keys.has(c)).map((c) => `${quote(c)} = excluded.${quote(c)}`);
  return `on conflict (${conflict.map(quote).join(', ')}) ${onConflict === 'merge' && updates.length > 0 ? `do update set ${updates.join(', ')}` : 'do nothing'}`;
}

function statementText(table: string, columns: readonly string[], rows: number, conflict: readonly string[], onConflict: OnConflict): string {
  const shape = `${table}|${columns.join(',')}|${rows}|${conflict.join(',')}|${onConflict}`;
  let sql = texts.get(shape);
  if (sql === undefined) {
    const tuple = `(${columns.map(() => '?').join(',')})`;
    sql = `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(',')} ${conflictClause(columns, conflict, onConflict)}`;
    if (texts.size >= 64) texts.delete(texts.keys().next().value as string);
    texts.set(shape, sql);
  }
  return sql;
}

/** A value as knex's better-sqlite3 client binds it (booleans and dates have no SQLite type). */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return Number(value);
  if (value instanceof Date) return value.valueOf();
  return value;
}

/** A row's values in column order, or an error naming the table when it does not fit the columns. */
function valuesOf(table: string, columns: readonly string[], row: object): unknown[] {
  const record = row as Record<string, unknown>;
  if (Object.keys(record).length !== columns.length) throw new Error(`insertRows(${table}): rows differ in their columns (expected ${columns.join(', ')})`);
  return columns.map((column) => {
    const value = record[column];
    if (value === undefined) throw new Error(`insertRows(${table}): a row has no value for ${column}`);
    return value;
  });
}

/** True when every value binds as the same text through JSON as through the driver (strings, finite numbers, nulls). */
function jsonSafe(values: readonly unknown[][]): boolean {
  for (const row of values) {
    for (const value of row) {
      if (value === null || typeof value === 'string') continue;
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
    }
  }
  return true;
}

/**
 * A NUL or a lone surrogate: JSON escapes them (`\u0000`, `\ud800`), Postgres's JSON parser then
 * refuses them with errors of its own, while the driver's text parameters refuse the NUL and store
 * a lone surrogate as U+FFFD. Such rows take the `VALUES` statements, so they fare as they always did.
 */
const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f])/i;

/** For `merge`, the last row of each key (what upserting them one after another leaves); one statement may not update a row twice. */
function lastOfEachKey<R extends { values: unknown[] }>(columns: readonly string[], conflict: readonly string[], rows: R[]): R[] {
  const at = conflict.map((c) => columns.indexOf(c));
  const byKey = new Map<string, R>();
  for (const row of rows) {
    const key = JSON.stringify(at.map((i) => row.values[i]));
    byKey.delete(key);
    byKey.set(key, row);
  }
  return byKey.size === rows.length ? rows : [...byKey.values()];
}

/**
 * Postgres: up to `JSON_ROWS_PER_STATEMENT` rows a statement, sent as one JSON array bound to a
 * single parameter and expanded by `json_populate_recordset` into the table's own row type (so every
 * column gets its declared type); parsing one document costs Postgres far less than binding and
 * planning thousands of parameters, and the rows (checked to hold exactly the columns) serialise
 * natively. Rows that JSON would not carry as the driver does (see `jsonSafe`,
 * `ESCAPED_UNSTORABLE`) take the `VALUES` statements instead.
 */
async function insertPostgres(
  db: Knex | Knex.Transaction,
  table: string,
  columns: readonly string[],
  all: Array<{ row: object; values: unknown[] }>,
  conflict: readonly string[],
  onConflict: OnConflict,
): Promise<void> {
  const list = columns.map(quote).join(', ');
  for (const part of chunks(all, JSON_ROWS_PER_STATEMENT)) {
    const rows = onConflict === 'merge' ? lastOfEachKey(columns, conflict, part) : part;
    const values = rows.map((r) => r.values);
    const json = jsonSafe(values) ? JSON.stringify(rows.map((r) => r.row)) : undefined;
    if (json === undefined || ESCAPED_UNSTORABLE.test(json)) {
      for (const small of chunks(values, ROWS_PER_STATEMENT))
        await db.raw(statementText(table, columns, small.length, conflict, onConflict), small.flat() as Knex.RawBinding[]);
      continue;
    }
    const sql = `insert into ${quote(table)} (${list}) select ${list} from json_populate_recordset(null::${quote(table)}, ?::json) ${conflictClause(columns, conflict, onConflict)}`;
    await db.raw(sql, [json]);
  }
}

/**
 * Inserts rows (all with the same columns, as the first row names them) with `ON CONFLICT`, which
 * SQLite and Postgres both speak, the statement text built once per shape.
 * knex's insert builder would produce the same rows, but it rebuilds the statement, row by row and
 * column by column, on every call: for a sync that cost as much CPU as SQLite spent running them.
 * Every row is checked before anything is written.
 *
 * On SQLite the rows go one by one through a single-row statement, run on the connection itself
 * (the transaction's, when `db` is one: knex's transaction client hands out its own), kept compiled
 * by the statement cache. That is what the library does fastest: a 200-row statement took a
 * quarter longer for the same rows, and knex's raw-query formatting would scan all of its 5,400
 * placeholders on every call. Postgres gets thousands of rows a statement (`insertPostgres`).
 * knex's `query` event is emitted for every statement either way.
 */
export async function insertRows(
  db: Knex | Knex.Transaction,
  table: string,
  rows: ReadonlyArray<object>,
  conflict: readonly string[],
  onConflict: OnConflict,
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const values = rows.map((row) => valuesOf(table, columns, row));
  if (isPostgres(db))
    return insertPostgres(
      db,
      table,
      columns,
      rows.map((row, i) => ({ row, values: values[i] as unknown[] })),
      conflict,
      onConflict,
    );
  const sql = statementText(table, columns, 1, conflict, onConflict);
  await withPooledConnection(db, (connection: BetterSqlite3.Database) => {
    const statement = connection.prepare(sql);
    for (const row of values) {
      if ('isCompleted' in db && db.isCompleted()) throw new Error(`Transaction query already complete: ${sql.slice(0, 60)}`);
      for (let i = 0; i < row.length; i += 1) row[i] = sqliteValue(row[i]);
      db.emit('query', { sql, bindings: row, method: 'insert' });
      statement.run(row);
    }
  });
}
