import type BetterSqlite3 from 'better-sqlite3';

/**
 * Makes `conn.prepare` reuse compiled read statements. knex's better-sqlite3 client prepares
 * every query afresh, and compiling a page query costs about as much as running it; the gateway
 * runs a handful of query shapes with different bindings, so a small cache keyed by the SQL text
 * removes that cost. Only readers are kept: a statement is stateless between `all()` calls, and
 * SQLite recompiles a cached statement by itself when the schema changes under it. Writers and
 * DDL (run once each, or inside batched transactions) are prepared as before.
 */
export function cacheReaderStatements(conn: BetterSqlite3.Database, max = 256): void {
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
    if (statement.reader) {
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    }
    return statement;
  }) as BetterSqlite3.Database['prepare'];
}
