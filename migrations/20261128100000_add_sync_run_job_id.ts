import type { Knex } from 'knex';

/**
 * The queue job a sync run worked (a `sync-worker`'s, on Postgres; none for `sync` from the CLI):
 * written with the run row itself, so no run of a worker is ever recorded without its job.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sync_runs', (t) => {
    t.string('job_id', 64);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sync_runs', (t) => {
    t.dropColumn('job_id');
  });
}
