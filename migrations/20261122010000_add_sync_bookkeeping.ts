import type { Knex } from 'knex';

/**
 * What the sync engine needs beyond the served rows (and the pre-serialised list representation): fingerprints to detect change without
 * re-reading content, a per-source lock that survives crashes (a lease), and the set of ids a
 * full run has seen (so an interrupted run resumes without losing its marks, and an unchanged
 * item costs no write to the served tables).
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  const key = (t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder => (pg ? t.specificType(name, 'text collate "C"') : t.text(name));

  await knex.schema.alterTable('files', (t) => {
    t.text('source_version');
    t.text('permissions_hash');
    // The list representation, serialised when the row is written (see wire/file-resource.ts).
    t.text('wire_json');
  });
  await knex.schema.alterTable('users', (t) => {
    t.text('content_hash');
  });
  await knex.schema.alterTable('groups', (t) => {
    t.text('content_hash');
  });

  await knex.schema.createTable('sync_locks', (t) => {
    key(t, 'source').primary();
    t.text('owner').notNullable();
    t.text('expires_at').notNullable();
  });

  await knex.schema.createTable('sync_seen', (t) => {
    t.integer('run_id').notNullable();
    key(t, 'kind').notNullable();
    key(t, 'id').notNullable();
    t.primary(['run_id', 'kind', 'id']);
  });

  await knex.schema.alterTable('sync_runs', (t) => {
    t.text('checkpoint');
    t.text('heartbeat_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sync_runs', (t) => {
    t.dropColumn('checkpoint');
    t.dropColumn('heartbeat_at');
  });
  await knex.schema.dropTableIfExists('sync_seen');
  await knex.schema.dropTableIfExists('sync_locks');
  await knex.schema.alterTable('groups', (t) => t.dropColumn('content_hash'));
  await knex.schema.alterTable('users', (t) => t.dropColumn('content_hash'));
  await knex.schema.alterTable('files', (t) => {
    t.dropColumn('source_version');
    t.dropColumn('permissions_hash');
    t.dropColumn('wire_json');
  });
}
