import type { Knex } from 'knex';

/**
 * The database blob store (`BLOB_STORE=database`): binary content kept in the staging database
 * itself, for deployments where the gateway and the sync share a database but no folder. A blob is
 * a row (`blobs`, by its SHA-256) and its bytes are rows of `chunk_bytes` each (`blob_chunks`; the
 * last one shorter), so a download reads one chunk at a time whatever the file's size. Chunks belong to the write that
 * stored them (`content_id`): two syncs storing the same content at once never collide, and the
 * write that loses the race for `blobs.key` deletes its own chunks. `written_at` tells the chunks
 * of a write killed mid-way (no `blobs` row points at their `content_id`) from those of one still
 * under way, for an operator or a later clean-up.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('blobs', (t) => {
    t.string('key', 64).primary();
    t.string('content_id', 36).notNullable().unique();
    t.bigInteger('size').notNullable();
    t.string('sha1', 40).notNullable();
    t.integer('chunk_bytes').notNullable();
    // When the content was last stored (a put of content already there renews it).
    t.text('stored_at').notNullable();
  });
  await knex.schema.createTable('blob_chunks', (t) => {
    t.string('content_id', 36).notNullable();
    t.integer('seq').notNullable();
    t.binary('data').notNullable();
    t.text('written_at').notNullable();
    t.primary(['content_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('blob_chunks');
  await knex.schema.dropTableIfExists('blobs');
}
