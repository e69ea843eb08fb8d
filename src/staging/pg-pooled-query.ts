import crypto from 'node:crypto';
import type { Db } from './create-db';
import { withPooledConnection } from './with-pooled-connection';

interface PgQueryConfig {
  name: string;
  text: string;
  values: unknown[];
}

/** The part of a `pg` client a pooled query uses. */
interface PgConnection {
  query(config: PgQueryConfig): Promise<{ rows: unknown[] }>;
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
 * opened.
 */
export async function pgPooledRows<Row>(db: Db, name: string, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  return withPooledConnection(db, async (connection: PgConnection) => (await connection.query({ name, text: sql, values: [...bindings] })).rows as Row[]);
}
