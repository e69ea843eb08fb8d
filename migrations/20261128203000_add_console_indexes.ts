import type { Knex } from 'knex';

/**
 * Indexes the operator console's pages need at 100,000 files (kit/bench/console-pages.ts):
 * `files (source, status)`, so the Sources page counts each source's files and tombstones from the
 * index alone instead of reading every row; and `files (blob_key)`, so `gc-blobs` (and the Blobs
 * page's dry run of it) finds which stored blobs rows still point at without a scan of the table
 * per batch of blobs; and `file_permissions (served_id, principal_type, file_id)`, so the access
 * explorer finds the files a user's groups are granted from the entries naming those groups.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('files', (t) => {
    t.index(['source', 'status'], 'files_source_status');
    t.index(['blob_key'], 'files_blob_key');
  });
  await knex.schema.alterTable('file_permissions', (t) => {
    t.index(['served_id', 'principal_type', 'file_id'], 'file_permissions_served_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('file_permissions', (t) => {
    t.dropIndex(['served_id', 'principal_type', 'file_id'], 'file_permissions_served_id');
  });
  await knex.schema.alterTable('files', (t) => {
    t.dropIndex(['source', 'status'], 'files_source_status');
    t.dropIndex(['blob_key'], 'files_blob_key');
  });
}
