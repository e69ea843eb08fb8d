import type { Knex } from 'knex';

/** knex's client, as far as lending its pooled connections goes. */
interface PooledClient<C> {
  acquireConnection(): Promise<C>;
  releaseConnection(connection: C): Promise<void>;
}

/**
 * Runs `work` on one of knex's pooled connections (the transaction's own, when `db` is one), the
 * driver's connection itself (`pg`'s client, better-sqlite3's database), released after: for
 * statements that skip knex's builder and runner.
 */
export async function withPooledConnection<C, T>(db: Knex | Knex.Transaction, work: (connection: C) => Promise<T> | T): Promise<T> {
  const client = db.client as PooledClient<C>;
  const connection = await client.acquireConnection();
  try {
    return await work(connection);
  } finally {
    await client.releaseConnection(connection);
  }
}
