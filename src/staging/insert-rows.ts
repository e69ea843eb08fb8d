import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { chunks } from '../lib/chunks';

/** Rows per Postgres statement: 200 rows of the widest table bind about 5,400 values, far under its limit. */
export const ROWS_PER_STATEMENT = 200;

/** What a row whose key is already staged does: replace the stored values, or keep them. */
export type OnConflict = 'merge' | 'ignore';

/** SQL text by statement shape (table, columns, row count, conflict handling): a handful of shapes repeat. */
const texts = new Map<string, string>();

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function statementText(table: string, columns: readonly string[], rows: number, conflict: readonly string[], onConflict: OnConflict): string {
  const shape = `${table}|${columns.join(',')}|${rows}|${conflict.join(',')}|${onConflict}`;
  let sql = texts.get(shape);
  if (sql === undefined) {
    const tuple = `(${columns.map(() => '?').join(',')})`;
    const keys = new Set(conflict);
    const updates = columns.filter((c) => !keys.has(c)).map((c) => `${quote(c)} = excluded.${quote(c)}`);
    const action = onConflict === 'merge' && updates.length > 0 ? `do update set ${updates.join(', ')}` : 'do nothing';
    sql =
      `insert into ${quote(table)} (${columns.map(quote).join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(',')} ` +
      `on conflict (${conflict.map(quote).join(', ')}) ${action}`;
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

interface SqliteClient {
  acquireConnection(): Promise<BetterSqlite3.Database>;
  releaseConnection(connection: BetterSqlite3.Database): Promise<void>;
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

/**
 * Inserts rows (all with the same columns, as the first row names them) as `INSERT ... VALUES ...
 * ON CONFLICT`, which SQLite and Postgres both speak, the statement text built once per shape.
 * knex's insert builder would produce the same rows, but it rebuilds the statement, row by row and
 * column by column, on every call: for a sync that cost as much CPU as SQLite spent running them.
 * Every row is checked before anything is written.
 *
 * On SQLite the rows go one by one through a single-row statement, run on the connection itself
 * (the transaction's, when `db` is one: knex's transaction client hands out its own), kept compiled
 * by the statement cache. That is what the library does fastest: a 200-row statement took a
 * quarter longer for the same rows, and knex's raw-query formatting would scan all of its 5,400
 * placeholders on every call. Postgres gets `ROWS_PER_STATEMENT` rows a statement, one round trip
 * each. knex's `query` event is emitted for every statement either way.
 */
export async function insertRows(db: Knex | Knex.Transaction, table: string, rows: ReadonlyArray<object>, conflict: readonly string[], onConflict: OnConflict): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const values = rows.map((row) => valuesOf(table, columns, row));
  if (db.client.config.client !== 'better-sqlite3') {
    for (const part of chunks(values, ROWS_PER_STATEMENT)) {
      await db.raw(statementText(table, columns, part.length, conflict, onConflict), part.flat() as Knex.RawBinding[]);
    }
    return;
  }
  const sql = statementText(table, columns, 1, conflict, onConflict);
  const client = db.client as SqliteClient;
  const connection = await client.acquireConnection();
  try {
    const statement = connection.prepare(sql);
    for (const row of values) {
      if ('isCompleted' in db && db.isCompleted()) throw new Error(`Transaction query already complete: ${sql.slice(0, 60)}`);
      for (let i = 0; i < row.length; i += 1) row[i] = sqliteValue(row[i]);
      db.emit('query', { sql, bindings: row, method: 'insert' });
      statement.run(row);
    }
  } finally {
    await client.releaseConnection(connection);
  }
}
