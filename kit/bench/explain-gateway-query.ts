import type { Knex } from 'knex';
import { isPostgres, type Db } from 'content-gateway';

export interface CapturedQuery {
  sql: string;
  bindings: Knex.RawBinding[];
}

interface QueryEvent {
  sql: string;
  bindings?: Knex.RawBinding[];
}

/** The SQL statements the gateway runs while `work` runs (knex 'query' events). */
export async function captureQueries(db: Db, work: () => Promise<unknown>): Promise<CapturedQuery[]> {
  const seen: CapturedQuery[] = [];
  const listener = (q: QueryEvent): void => {
    seen.push({ sql: q.sql, bindings: q.bindings ?? [] });
  };
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.off('query', listener);
  }
  return seen;
}

/**
 * A captured statement as knex.raw takes it: on Postgres the query event carries the native text,
 * with `$1`, `$2`, … in binding order, which knex.raw would not bind; it wants `?`.
 */
function rawSql(db: Db, q: CapturedQuery): string {
  return isPostgres(db) ? q.sql.replace(/\$\d+/g, '?') : q.sql;
}

/** The database's plan for a captured statement, one line per step (SQLite's `detail`s, Postgres's `EXPLAIN` lines). */
export async function explainQuery(db: Db, q: CapturedQuery): Promise<string[]> {
  if (isPostgres(db)) {
    const result = (await db.raw(`EXPLAIN ${rawSql(db, q)}`, q.bindings)) as { rows: Array<{ 'QUERY PLAN': string }> };
    return result.rows.map((r) => r['QUERY PLAN'].trim());
  }
  const rows = (await db.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings)) as Array<{ detail: string }>;
  return rows.map((r) => r.detail);
}

/** Median milliseconds of running a captured statement straight through knex (no HTTP). */
export async function timeQuery(db: Db, q: CapturedQuery, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    await db.raw(rawSql(db, q), q.bindings);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}
