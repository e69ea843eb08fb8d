import type { Knex } from 'knex';

/**
 * Changes a sync run found that no event announced (access reconciliation of a lossy change
 * feed: access lists rewritten, files tombstoned or read again). A column of its own, not a key
 * of `counts`, so `/metrics` sums it over every run of a source in one query.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sync_runs', (t) => {
    t.integer('unannounced').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sync_runs', (t) => {
    t.dropColumn('unannounced');
  });
}
