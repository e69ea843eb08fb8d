import type { Knex } from 'knex';
import type PgBoss from 'pg-boss';

/** What a Postgres connection answers a query with (node-postgres). */
interface PgConnection {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * A knex transaction (on Postgres) as the `db` pg-boss takes in its options (`complete`, `send`,
 * … with `{ db }`, as its docs describe): its statements run on the transaction's connection, so
 * they commit or roll back with it.
 */
export function transactionExecutor(trx: Knex.Transaction): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      // Within a transaction, knex's client hands out the transaction's own connection.
      const connection = (await trx.client.acquireConnection()) as PgConnection;
      return connection.query(text, values);
    },
  };
}
