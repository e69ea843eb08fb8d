import path from 'node:path';
import { createDb, type Db } from 'content-gateway';
import { createPrivateSchema } from 'content-gateway';
import { migrateLatest } from 'content-gateway';

export interface HarnessStaging {
  db: Db;
  /** What the summary names: `sqlite` or `postgres (schema …)`. */
  label: string;
  /** Closes the database (and drops the scenario's Postgres schema). */
  close(): Promise<void>;
}

/**
 * A fresh, migrated staging database for one scenario: a SQLite file in `workDir`, or, with
 * `databaseUrl`, a Postgres schema of its own (`harness_<random>`), dropped again by `close`, so
 * the scenario never touches what else that database holds.
 */
export async function openHarnessStaging(workDir: string, databaseUrl?: string): Promise<HarnessStaging> {
  if (!databaseUrl) {
    const db = createDb({ sqlitePath: path.join(workDir, 'staging.sqlite') });
    await migrateLatest(db);
    return { db, label: 'sqlite', close: () => db.destroy() };
  }
  const { schema, drop } = await createPrivateSchema(databaseUrl, 'harness');
  const db = createDb({ databaseUrl, sqlitePath: ':memory:', searchPath: schema });
  const close = async (): Promise<void> => {
    await drop(db);
    await db.destroy();
  };
  try {
    await migrateLatest(db);
  } catch (error) {
    await close();
    throw error;
  }
  return { db, label: `postgres (schema ${schema})`, close };
}
