import type { Knex } from 'knex';

/**
 * Bytes of a file's id and stored list JSON together under which the JSON is copied into
 * `list_json`: a Postgres b-tree entry holds at most about 2.7 kB (a third of a page), and the
 * list indexes' widest entry is a timestamp, the id and this copy, with headers.
 */
export const LIST_JSON_MAX_BYTES = 2400;

/**
 * Postgres list pages read their items from covering indexes, as SQLite's do since
 * `add_list_covering_indexes`: `list_json`, a generated copy of `wire_json` kept only while it is
 * small enough for a b-tree entry (null otherwise), is included in an index per ordering, so a
 * page of a hundred items is a short index-only scan instead of a hundred lookups into the wide
 * `files` rows (a page's backend CPU fell by 60 % at 100,000 files). A file whose JSON is too long
 * has a null copy; the page query then reads its `wire_json` from the table for that row only.
 * Index-only scans need the table's visibility map, which VACUUM keeps (autovacuum, and the bulk
 * load runs one); on pages it does not yet cover, Postgres reads the row from the table as before.
 * The (modified_at, id) index gives way to the covering one, whose key is the same.
 *
 * Adding a stored generated column rewrites the table once, under an exclusive lock.
 */
export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(
    `alter table files add column list_json text generated always as
       (case when octet_length(wire_json) + octet_length(id) <= ${LIST_JSON_MAX_BYTES} then wire_json end) stored`,
  );
  await knex.raw(`create index files_list_id on files (id) include (list_json)`);
  await knex.raw(`create index files_list_modified on files (modified_at, id) include (list_json)`);
  await knex.raw(`drop index files_modified_id`);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(`create index files_modified_id on files (modified_at, id)`);
  await knex.raw(`drop index files_list_modified`);
  await knex.raw(`drop index files_list_id`);
  await knex.raw(`alter table files drop column list_json`);
}
