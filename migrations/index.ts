import type { Knex } from 'knex';
import * as createStagingSchema from './20261122000000_create_staging_schema';
import * as addSyncBookkeeping from './20261122010000_add_sync_bookkeeping';
import * as addListCoveringIndexes from './20261123000000_add_list_covering_indexes';
import * as addDatabaseBlobStore from './20261123120000_add_database_blob_store';
import * as addSyncRunUnannounced from './20261125000000_add_sync_run_unannounced';
import * as servePeople from './20261125020000_serve_people';
import * as addPostgresListCovering from './20261125100000_add_postgres_list_covering';
import * as indexUserAccessOnly from './20261125110000_index_user_access_only';
import * as boundServedIds from './20261127000000_bound_served_ids';
import * as fillFileWireJson from './20261128000000_fill_file_wire_json';
import * as addSyncRunJobId from './20261128100000_add_sync_run_job_id';
import * as addSyncListed from './20261128110000_add_sync_listed';
import * as addObjectStoreBlobs from './20261128120000_add_object_store_blobs';
import * as addWebhookSecrets from './20261128150000_add_webhook_secrets';
import * as addFileAccessAsOf from './20261128170000_add_file_access_as_of';
import * as keyWebhookSecretsByResource from './20261128193000_key_webhook_secrets_by_resource';
import * as addConsoleIndexes from './20261128203000_add_console_indexes';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/**
 * Every migration, in order. Listing them in code (rather than letting knex scan a folder) makes
 * the same list work from TypeScript sources under test and from the compiled `dist/`.
 * Add new migrations at the end; never rename or reorder old ones.
 */
export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261122000000_create_staging_schema', createStagingSchema],
  ['20261122010000_add_sync_bookkeeping', addSyncBookkeeping],
  ['20261123000000_add_list_covering_indexes', addListCoveringIndexes],
  ['20261123120000_add_database_blob_store', addDatabaseBlobStore],
  ['20261125000000_add_sync_run_unannounced', addSyncRunUnannounced],
  ['20261125020000_serve_people', servePeople],
  ['20261125100000_add_postgres_list_covering', addPostgresListCovering],
  ['20261125110000_index_user_access_only', indexUserAccessOnly],
  ['20261127000000_bound_served_ids', boundServedIds],
  ['20261128000000_fill_file_wire_json', fillFileWireJson],
  ['20261128100000_add_sync_run_job_id', addSyncRunJobId],
  ['20261128110000_add_sync_listed', addSyncListed],
  ['20261128120000_add_object_store_blobs', addObjectStoreBlobs],
  ['20261128150000_add_webhook_secrets', addWebhookSecrets],
  ['20261128170000_add_file_access_as_of', addFileAccessAsOf],
  ['20261128193000_key_webhook_secrets_by_resource', keyWebhookSecretsByResource],
  ['20261128203000_add_console_indexes', addConsoleIndexes],
];
