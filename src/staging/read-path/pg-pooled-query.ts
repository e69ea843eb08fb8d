import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { DatabaseTimeoutError, markConnectionLost } from '../../lib/database-unavailable';
import { withDeadline } from '../../lib/with-deadline';
import { answerBound, pgConnectionWatch, type Db } from '../database/create-db';
import { withPooledConnection } from '../database/with-pooled-connection';

interface PgQueryConfig {
  name: string;
  text: string;
  values: unknown[];
  rowMode?: 'array';
  types?: { getTypeParser(oid: number, format: string): (value: string) => unknown };
}

/** A row as `pgPooledTextRows` returns it: each column's text as Postgres sent it, in select order, or null. */
export type TextRow = ReadonlyArray<string | null>;

/** What a `TextRow` statement's values go through: nothing, every type kept as the text Postgres sent. */
const AS_SENT = {
  getTypeParser:
    () =>
    (value: string): string =>
      value,
};

/** The part of a `pg` client a pooled query uses. */
interface PgConnection extends EventEmitter {
  query(config: PgQueryConfig): Promise<{ rows: unknown[] }>;
  /** Closes the connection; with a statement in flight, at once (its socket destroyed). */
  end(): Promise<void>;
}

/** A statement's name on a connection, from its text: the same text is the same prepared statement. */
export function statementName(sql: string): string {
  return `gw_${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
}

/**
 * Runs native Postgres SQL (`$1`, `$2`, …) with `bindings` on one of knex's pooled connections,
 * as a named prepared statement (`name` from `statementName`): Postgres parses and plans it once
 * per connection, and the server thread skips knex's builder and runner (about 40 µs of a list
 * page's CPU). knex's `query` event is not emitted: the caller emits it (`{ sql, bindings, method }`)
 * for query logging and plan capture. The connection's search path is the one knex set on it when it
 * opened. As knex's own statements, it is answered within the database's bound (`answerBound`) or
 * fails with `DatabaseTimeoutError`, its connection closed (the pool then drops it); a statement on
 * a connection that died is marked as such (`markConnectionLost`).
 */
export async function pgPooledRows<Row>(db: Db, name: string, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  return runPooled<Row>(db, { name, text: sql, values: [...bindings] });
}

/**
 * As `pgPooledRows`, each row an array of its columns' text as Postgres sent it (node-postgres's
 * `rowMode: 'array'`, no type parsed): no object built per row, no JSON column parsed, so a list
 * page's stored JSON is joined as it came.
 */
export async function pgPooledTextRows(db: Db, name: string, sql: string, bindings: readonly unknown[]): Promise<TextRow[]> {
  return runPooled<TextRow>(db, { name, text: sql, values: [...bindings], rowMode: 'array', types: AS_SENT });
}

async function runPooled<Row>(db: Db, config: PgQueryConfig): Promise<Row[]> {
  const bound = answerBound(db);
  return withPooledConnection(db, async (connection: PgConnection) => {
    const answer = connection.query(config).catch((error: unknown) => {
      if (pgConnectionWatch(db)?.isDead(connection)) markConnectionLost(error);
      throw error;
    });
    let result: { rows: unknown[] };
    try {
      result = await withDeadline(answer, bound, () => new DatabaseTimeoutError('a statement', bound));
    } catch (error) {
      // Closed before it goes back to the pool, so the pool knows it dead and never lends it again.
      if (error instanceof DatabaseTimeoutError) await connection.end().catch(() => undefined);
      throw error;
    }
    return result.rows as Row[];
  });
}
