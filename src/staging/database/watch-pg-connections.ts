import type { EventEmitter } from 'node:events';
import { markConnectionLost } from '../../lib/database-unavailable';
import type { Knex } from 'knex';

/** A node-postgres client as knex's pool holds it: an event emitter, with the id knex gives each connection (and names in its query events). */
type PooledPgClient = EventEmitter & { __knexUid?: string };

/** The events of knex's pool (tarn) that tell of connections made and ended. */
interface PoolEvents {
  on(event: 'createFail', listener: (eventId: number, error: unknown) => void): void;
  on(event: 'destroySuccess', listener: (eventId: number, connection: PooledPgClient) => void): void;
}

function hasSqlState(error: unknown): boolean {
  return typeof (error as { code?: unknown } | null)?.code === 'string';
}

/**
 * Makes the errors of node-postgres's lost and failed connections classifiable
 * (`markConnectionLost`): it reports them without a code, as events rather than codes. A
 * connection that dies emits `error` with the very error its pending statement fails with
 * (`Connection terminated unexpectedly` on a FIN, say); a statement sent on a connection already
 * dead or closed fails with a new error (`… not queryable`), told by the connection it ran on (knex's
 * `query-error` names it); a connection that could not be made (closed during start-up, out of
 * time) fails the pool's `createFail`, unless the server said why with a SQLSTATE (a wrong password
 * is not an outage). `afterCreate` goes in knex's pool settings, `watch` is called on the database.
 */
export class PgConnectionWatch {
  /** knex's ids of the pooled connections that died, until the pool destroys them. */
  private readonly dead = new Set<string>();

  readonly afterCreate = (connection: PooledPgClient, done: (error: Error | null, connection: PooledPgClient) => void): void => {
    connection.on('error', (error: unknown) => {
      markConnectionLost(error);
      if (connection.__knexUid) this.dead.add(connection.__knexUid);
    });
    connection.once('end', () => {
      if (connection.__knexUid) this.dead.add(connection.__knexUid);
    });
    done(null, connection);
  };

  watch(db: Knex): void {
    const pool = (db.client as { pool?: PoolEvents }).pool;
    pool?.on('createFail', (_eventId, error) => {
      if (!hasSqlState(error)) markConnectionLost(error);
    });
    pool?.on('destroySuccess', (_eventId, connection) => {
      if (connection?.__knexUid) this.dead.delete(connection.__knexUid);
    });
    db.on('query-error', (error: unknown, query: { __knexUid?: string }) => {
      if (query.__knexUid && this.dead.has(query.__knexUid)) markConnectionLost(error);
    });
  }

  /** Whether `connection` (one of knex's) has died. */
  isDead(connection: PooledPgClient): boolean {
    return connection.__knexUid !== undefined && this.dead.has(connection.__knexUid);
  }
}
