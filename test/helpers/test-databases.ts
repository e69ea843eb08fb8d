import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { createDb, type Db } from '../../src/staging/database/create-db';
import { migrateLatest } from '../../src/staging/database/run-migrations';
import { SQLITE_TEMPLATE_ENV } from '../setup/sqlite-template';

export type DatabaseKind = 'sqlite' | 'postgres';

/** The databases this run covers: SQLite always, Postgres when TEST_DATABASE_URL is set. */
export const databaseKinds: DatabaseKind[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  kind: DatabaseKind;
  db: Db;
  /** For child processes: how to reach the same database. */
  env: Record<string, string>;
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated staging database: a SQLite file in a temp folder (a copy of the run's
 * template, which the real migrations made, then brought up to date), or a Postgres schema of its
 * own (so parallel test files never see each other's rows), dropped again by `destroy`.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-db-'));
    const sqlitePath = path.join(dir, 'staging.sqlite');
    // A copy of the run's migrated file (global setup), when there is one: migrating is the cost.
    const template = process.env[SQLITE_TEMPLATE_ENV];
    if (template && fs.existsSync(template)) fs.copyFileSync(template, sqlitePath);
    const db = createDb({ sqlitePath });
    await migrateLatest(db);
    return {
      kind,
      db,
      env: { SQLITE_PATH: sqlitePath },
      destroy: async () => {
        await db.destroy();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  await admin.raw('create schema ??', [schema]);
  await admin.destroy();
  const db = createDb({ databaseUrl: url, sqlitePath: ':memory:', searchPath: schema });
  await migrateLatest(db);
  return {
    kind,
    db,
    // The sync job queue (pg-boss), when a `sync-worker` creates it, in a schema of its own too.
    env: { DATABASE_URL: url, DATABASE_SCHEMA: schema, SYNC_QUEUE_SCHEMA: `${schema}_q` },
    destroy: async () => {
      await db.raw('drop schema if exists ?? cascade', [schema]);
      await db.raw('drop schema if exists ?? cascade', [`${schema}_q`]);
      await db.destroy();
    },
  };
}
