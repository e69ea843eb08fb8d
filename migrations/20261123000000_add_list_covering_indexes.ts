import type { Knex } from 'knex';

/**
 * On SQLite, list pages in the two orderings the API offers read every item from an index that
 * also holds its stored list JSON (`wire_json`), so a page is one short sequential index scan
 * instead of a table lookup per item, which halves the cost of a page at any depth. The
 * (modified_at, id, wire_json) index replaces (modified_at, id): its prefix serves the same seeks.
 *
 * Postgres keeps its plain indexes: a btree entry there is limited to about 2.7 kB, which a file
 * with long custom attributes would exceed, and its heap lookups are cheaper than SQLite's.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.schema.alterTable('files', (t) => {
    t.index(['id', 'wire_json'], 'files_list_id');
    t.index(['modified_at', 'id', 'wire_json'], 'files_list_modified');
    t.dropIndex(['modified_at', 'id'], 'files_modified_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.schema.alterTable('files', (t) => {
    t.index(['modified_at', 'id'], 'files_modified_id');
    t.dropIndex(['modified_at', 'id', 'wire_json'], 'files_list_modified');
    t.dropIndex(['id', 'wire_json'], 'files_list_id');
  });
}
