import type { Knex } from 'knex';

/**
 * The staging schema the gateway serves from and the sync engine writes to.
 *
 * Keys and timestamps are text. Timestamps are fixed-width ISO-8601 UTC strings
 * (`2026-01-02T03:04:05.678Z`), so they sort as text, compare identically on SQLite and Postgres
 * and round-trip without time-zone surprises. On Postgres every key column uses the "C" collation:
 * byte order, like SQLite's default, so both databases page through ids in the same order.
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  const key = (t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder => (pg ? t.specificType(name, 'text collate "C"') : t.text(name));

  await knex.schema.createTable('files', (t) => {
    key(t, 'id').primary();
    key(t, 'source').notNullable();
    key(t, 'native_id').notNullable();
    t.text('name').notNullable();
    t.text('external_url').notNullable();
    t.text('mime_type').notNullable();
    key(t, 'status').notNullable().defaultTo('active');
    t.bigInteger('size');
    t.text('sha256');
    t.text('sha1');
    t.text('blob_key');
    t.text('body_html');
    t.text('created_at');
    t.text('created_by');
    key(t, 'modified_at').notNullable();
    t.text('modified_by');
    t.text('parent_id');
    t.text('parent_name');
    t.text('parent_path');
    t.text('custom_attributes');
    t.text('content_hash');
    t.text('permissions_modified_at');
    t.integer('seen_run');
    t.text('deleted_at');
    t.unique(['source', 'native_id']);
    // Keyset seeks for every ordering and filter combination the API offers.
    t.index(['modified_at', 'id'], 'files_modified_id');
    t.index(['status', 'id'], 'files_status_id');
    t.index(['status', 'modified_at', 'id'], 'files_status_modified_id');
  });

  await knex.schema.createTable('file_permissions', (t) => {
    key(t, 'file_id').notNullable().references('id').inTable('files').onDelete('CASCADE');
    key(t, 'principal_type').notNullable();
    key(t, 'principal_id').notNullable();
    t.text('action').notNullable().defaultTo('VIEW');
    t.primary(['file_id', 'principal_type', 'principal_id']);
    t.index(['principal_type', 'principal_id'], 'file_permissions_principal');
  });

  await knex.schema.createTable('users', (t) => {
    key(t, 'id').primary();
    key(t, 'source').notNullable();
    key(t, 'native_id').notNullable();
    t.text('email').notNullable();
    t.text('full_name');
    key(t, 'state').notNullable().defaultTo('Active');
    key(t, 'modified_at').notNullable();
    t.text('metadata');
    t.integer('seen_run');
    t.unique(['source', 'native_id']);
    t.index(['modified_at', 'id'], 'users_modified_id');
    t.index(['state', 'id'], 'users_state_id');
  });

  await knex.schema.createTable('groups', (t) => {
    key(t, 'id').primary();
    key(t, 'source').notNullable();
    key(t, 'native_id').notNullable();
    t.text('name');
    t.text('created_at');
    key(t, 'modified_at').notNullable();
    t.text('metadata');
    t.integer('seen_run');
    t.unique(['source', 'native_id']);
    t.index(['modified_at', 'id'], 'groups_modified_id');
  });

  await knex.schema.createTable('group_members', (t) => {
    key(t, 'group_id').notNullable().references('id').inTable('groups').onDelete('CASCADE');
    key(t, 'member_type').notNullable();
    key(t, 'member_id').notNullable();
    t.integer('seen_run');
    t.primary(['group_id', 'member_type', 'member_id']);
    t.index(['member_type', 'member_id'], 'group_members_member');
  });

  await knex.schema.createTable('sync_runs', (t) => {
    t.increments('id').primary();
    key(t, 'source').notNullable();
    t.text('mode').notNullable();
    t.text('status').notNullable();
    t.text('started_at').notNullable();
    t.text('finished_at');
    t.text('counts');
    t.text('error');
    t.index(['source', 'id'], 'sync_runs_source_id');
  });

  await knex.schema.createTable('sync_checkpoints', (t) => {
    key(t, 'source').primary();
    t.text('checkpoint').notNullable();
    t.text('updated_at').notNullable();
  });

  // Settings the gateway keeps for itself, shared by every replica on the same database
  // (for example the generated `$skiptoken` signing secret).
  await knex.schema.createTable('gateway_settings', (t) => {
    key(t, 'key').primary();
    t.text('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['gateway_settings', 'sync_checkpoints', 'sync_runs', 'group_members', 'groups', 'users', 'file_permissions', 'files']) {
    await knex.schema.dropTableIfExists(table);
  }
}
