import type { Knex } from 'knex';

/**
 * The S3-compatible blob store (`BLOB_STORE=s3`) keeps its bytes in a bucket, and here when each
 * blob was last stored (a put of content already in the bucket renews it, though the object is
 * not written again): what a garbage collection compares with the rows that point at blobs, as
 * the object's `LastModified` cannot say it. A put records the time before it uploads, and a
 * collection deletes the row (only if still older than its grace) before the object, in one
 * transaction, so a put racing a collection waits for it and uploads again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('object_blobs', (t) => {
    t.string('key', 64).primary();
    t.text('stored_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('object_blobs');
}
