import crypto from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { DatabaseTimeoutError, markConnectionLost } from '../lib/database-unavailable';
import { withDeadline } from '../lib/with-deadline';
import { answerBound, pgConnectionWatch, type Db } from './create-db';
import { withPooledConnection } from './with-pooled-connection';

interface PgQueryConfig {
  name: string;
  text: string;
  values: unknown[];
}

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
  const bound = answerBound(db);
  return withPooledConnection(db, async (connection: PgConnection) => {
    const answer = connection.query({ name, text: sql, values: [...bindings] }).catch((error: unknown) => {
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
