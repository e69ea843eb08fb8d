import type BetterSqlite3 from 'better-sqlite3';

/**
 * Makes `conn.prepare` reuse compiled statements. knex's better-sqlite3 client prepares every
 * query afresh, and compiling costs about as much as running: a page query, or a sync batch's
 * 200-row upsert, whose text repeats chunk after chunk with new bindings. A small cache keyed by
 * the SQL text removes that cost. knex runs each statement to completion (`all()` or `run()`)
 * before it prepares the next, so a cached statement is never busy when it is handed out again,
 * and SQLite recompiles a cached statement by itself when the schema changes under it.
 */
export function cacheStatements(conn: BetterSqlite3.Database, max = 256): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, BetterSqlite3.Statement>();
  conn.prepare = ((sql: string) => {
    const hit = cache.get(sql);
    if (hit) {
      // Least recently used goes first: re-inserting moves the entry to the end.
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    const statement = prepare(sql);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(sql, statement);
    return statement;
  }) as BetterSqlite3.Database['prepare'];
}
