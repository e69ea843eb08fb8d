import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';

/** Rows per statement: 200 rows of the widest table bind about 5,400 values, far under both databases' limits. */
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

/**
 * Runs each statement. On SQLite it goes to the connection itself (the transaction's, when `db`
 * is one: knex's transaction client hands out its own), whose statement cache keeps the text
 * compiled: knex's raw-query formatting scans all of a statement's placeholders on every call,
 * which cost about a tenth of a sync's writes. knex's `query` event is emitted either way.
 */
async function runStatements(db: Knex | Knex.Transaction, statements: Array<{ sql: string; values: unknown[] }>): Promise<void> {
  if (db.client.config.client !== 'better-sqlite3') {
    for (const { sql, values } of statements) await db.raw(sql, values as Knex.RawBinding[]);
    return;
  }
  const client = db.client as SqliteClient;
  const connection = await client.acquireConnection();
  try {
    for (const { sql, values } of statements) {
      if ('isCompleted' in db && db.isCompleted()) throw new Error(`Transaction query already complete: ${sql.slice(0, 60)}`);
      db.emit('query', { sql, bindings: values, method: 'insert' });
      connection.prepare(sql).run(values.map(sqliteValue));
    }
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Inserts rows (all with the same columns, as the first row names them) `ROWS_PER_STATEMENT` to
 * a statement, as `INSERT ... VALUES ... ON CONFLICT`, which SQLite and Postgres both speak. knex's
 * insert builder would produce the same rows, but it rebuilds the statement, row by row and column
 * by column, on every call: for a sync that cost as much CPU as SQLite spent running the
 * statements. Here the text is built once per shape and only the values are bound. Every row is
 * checked before anything is written.
 */
export async function insertRows(db: Knex | Knex.Transaction, table: string, rows: ReadonlyArray<object>, conflict: readonly string[], onConflict: OnConflict): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const statements: Array<{ sql: string; values: unknown[] }> = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + ROWS_PER_STATEMENT);
    const values: unknown[] = [];
    for (const row of part) {
      const record = row as Record<string, unknown>;
      if (Object.keys(record).length !== columns.length) throw new Error(`insertRows(${table}): rows differ in their columns (expected ${columns.join(', ')})`);
      for (const column of columns) {
        const value = record[column];
        if (value === undefined) throw new Error(`insertRows(${table}): a row has no value for ${column}`);
        values.push(value);
      }
    }
    statements.push({ sql: statementText(table, columns, part.length, conflict, onConflict), values });
  }
  await runStatements(db, statements);
}
