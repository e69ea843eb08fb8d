import crypto from 'node:crypto';
import knex from 'knex';
import type { Db } from './create-db';

export interface PrivateSchema {
  /** `<prefix>_<12 random hex digits>`. */
  schema: string;
  /** Drops the schema and all it holds, through `db` (a connection to the same server). */
  drop(db: Db): Promise<void>;
}

/**
 * A new, empty Postgres schema of its own on the server at `url`, for a run (a scenario, a
 * benchmark) that must never touch what else that database holds.
 */
export async function createPrivateSchema(url: string, prefix: string): Promise<PrivateSchema> {
  const schema = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    await admin.raw('create schema ??', [schema]);
  } finally {
    await admin.destroy();
  }
  return { schema, drop: async (db) => void (await db.raw('drop schema if exists ?? cascade', [schema])) };
}
