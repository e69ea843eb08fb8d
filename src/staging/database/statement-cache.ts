import type BetterSqlite3 from 'better-sqlite3';

export interface StatementCacheLimits {
  /** Read statements kept: small, and the gateway runs a handful of shapes over and over. */
  readers: number;
  /**
   * Write statements kept. A sync batch's multi-row upsert compiles to about half a megabyte, so
   * only a few are kept: the full-chunk shapes, which repeat, stay; one-off shapes pass through.
   */
  writers: number;
}

const DEFAULT_LIMITS: StatementCacheLimits = { readers: 256, writers: 16 };

/** A least-recently-used map of compiled statements by SQL text. */
function lru(max: number) {
  const entries = new Map<string, BetterSqlite3.Statement>();
  return {
    get(sql: string): BetterSqlite3.Statement | undefined {
      const hit = entries.get(sql);
      if (hit) {
        // Re-inserting moves the entry to the end: the least recently used stays first.
        entries.delete(sql);
        entries.set(sql, hit);
      }
      return hit;
    },
    set(sql: string, statement: BetterSqlite3.Statement): void {
      if (max <= 0) return;
      if (entries.size >= max) entries.delete(entries.keys().next().value as string);
      entries.set(sql, statement);
    },
  };
}

/**
 * Makes `conn.prepare` reuse compiled statements. knex's better-sqlite3 client prepares every
 * query afresh, and compiling costs about as much as running: a page query, or a sync batch's
 * 200-row upsert whose text repeats chunk after chunk with new bindings. Caches keyed by the SQL
 * text remove that cost. knex runs each statement to completion (`all()` or `run()`) before it
 * prepares the next, so a cached statement is never busy when it is handed out again, and SQLite
 * recompiles a cached statement by itself when the schema changes under it.
 */
export function cacheStatements(conn: BetterSqlite3.Database, limits: StatementCacheLimits = DEFAULT_LIMITS): void {
  const prepare = conn.prepare.bind(conn);
  const readers = lru(limits.readers);
  const writers = lru(limits.writers);
  conn.prepare = ((sql: string) => {
    const hit = readers.get(sql) ?? writers.get(sql);
    if (hit) return hit;
    const statement = prepare(sql);
    (statement.reader ? readers : writers).set(sql, statement);
    return statement;
  }) as BetterSqlite3.Database['prepare'];
}
