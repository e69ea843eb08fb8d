import type { Knex } from 'knex';
import { migrations } from '../../../migrations';
import type { Db } from './create-db';

const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = migrations.find(([n]) => n === name);
    if (!found) throw new Error(`Unknown migration ${name}`);
    return found[1];
  },
};

/** Brings the staging schema up to date; safe to call on every start (knex locks concurrent runs). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

export async function migrateRollbackAll(db: Db): Promise<void> {
  await db.migrate.rollback({ migrationSource }, true);
}

/** Undoes migrations, newest first, until `name` is no longer applied (tests of a migration's data step). */
export async function migrateDownTo(db: Db, name: string): Promise<void> {
  for (;;) {
    const [completed] = (await db.migrate.list({ migrationSource })) as [Array<{ name: string } | string>, unknown];
    if (!completed.some((m) => (typeof m === 'string' ? m : m.name) === name)) return;
    await db.migrate.down({ migrationSource });
  }
}
