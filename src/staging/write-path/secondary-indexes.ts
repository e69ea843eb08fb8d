import type { Knex } from 'knex';
import { isPostgres } from '../database/create-db';

/**
 * A secondary index (not one behind a primary key or a unique constraint, nor a unique index: those
 * keep refusing a duplicate at the row that brings it) and the statement that makes it again.
 */
interface SecondaryIndex {
  name: string;
  create: string;
}

async function secondaryIndexes(trx: Knex.Transaction, table: string): Promise<SecondaryIndex[]> {
  if (isPostgres(trx)) {
    // From pg_index, not the pg_indexes view: its definitions would be read for other schemas'
    // indexes too, which a concurrent transaction may be dropping.
    const result = (await trx.raw(
      `select c.relname as name, pg_get_indexdef(i.indexrelid) as "create" from pg_index i
         join pg_class c on c.oid = i.indexrelid join pg_class t on t.oid = i.indrelid
        where t.relname = ? and t.relnamespace = current_schema()::regnamespace and not i.indisunique and not i.indisprimary`,
      [table],
    )) as { rows: SecondaryIndex[] };
    return result.rows;
  }
  // SQLite lists the indexes behind constraints without SQL of their own; LIKE ignores ASCII case.
  const sql = `select name, sql as "create" from sqlite_master where type = 'index' and tbl_name = ? and sql is not null and sql not like 'create unique %'`;
  return (await trx.raw(sql, [table])) as SecondaryIndex[];
}

const isEmpty = async (trx: Knex.Transaction, table: string): Promise<boolean> => (await trx(table).first(trx.raw('1'))) === undefined;

/**
 * Runs `work` (a bulk load inside `trx`) with the secondary indexes of those `tables` that are
 * empty dropped, and makes them again after, from their stored definitions: one sort per index
 * instead of a random b-tree insert per row into indexes that hold the stored list JSON. All of it
 * is in the caller's transaction (both databases make and drop indexes transactionally), so a load
 * that fails leaves the indexes as they were. Tables that hold rows keep their indexes: the load
 * then only adds to them. On Postgres the emptied table is locked until commit (dropping an index
 * needs that anyway): readers of it wait for the load instead of seeing it half done.
 */
export async function withoutSecondaryIndexes<T>(trx: Knex.Transaction, tables: readonly string[], work: () => Promise<T>): Promise<T> {
  const dropped: SecondaryIndex[] = [];
  for (const table of tables) {
    if (!(await isEmpty(trx, table))) continue;
    // Re-checked under the lock: a writer may have committed rows between the two reads.
    if (isPostgres(trx)) await trx.raw(`lock table ?? in access exclusive mode`, [table]);
    if (!(await isEmpty(trx, table))) continue;
    for (const index of await secondaryIndexes(trx, table)) {
      await trx.raw(`drop index ??`, [index.name]);
      dropped.push(index);
    }
  }
  const result = await work();
  // Room to sort in memory while the indexes are built (this transaction only).
  if (dropped.length > 0 && isPostgres(trx)) await trx.raw(`set local maintenance_work_mem = '256MB'`);
  for (const index of dropped) await trx.raw(index.create);
  return result;
}
