import type { Knex } from 'knex';

/**
 * The files an incremental run of an adapter that lists everything (the filesystem walk) has
 * listed so far, by source: what staging serves and the run did not list is gone at the source.
 * The per-file state such an adapter kept in its checkpoint (every file's version, in one JSON
 * document) lives in the staged rows instead (`files.source_version`); this table holds only the
 * running run's marks, cleared when the next one starts. One run per source at a time (its lock).
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  const key = (t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder => (pg ? t.specificType(name, 'text collate "C"') : t.text(name));
  await knex.schema.createTable('sync_listed', (t) => {
    key(t, 'source').notNullable();
    key(t, 'id').notNullable();
    t.primary(['source', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sync_listed');
}
