import type { Knex } from 'knex';

/**
 * `access_as_of` on files, users and groups: when the run that wrote a file's access list, a user
 * (active or not) or a group's members started (a lower bound on when it read them from the source). An access-only run and a full run of one source may
 * run at once; a write of access older than the stored one is skipped, so a revocation an access
 * run applied is never overwritten by the older view of a full run that started before it.
 * (The name says files; users and groups carry the column too.)
 */
const TABLES = ['files', 'users', 'groups'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.text('access_as_of').nullable();
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('access_as_of');
    });
  }
}
