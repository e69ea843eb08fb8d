import type { Knex } from 'knex';
import type { Db } from '../src/staging/create-db';

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

/** SQLite's plan for a captured statement, one `detail` per line. */
export async function explainQuery(db: Db, q: CapturedQuery): Promise<string[]> {
  const rows = (await db.raw(`EXPLAIN QUERY PLAN ${q.sql}`, q.bindings)) as Array<{ detail: string }>;
  return rows.map((r) => r.detail);
}

/** Median milliseconds of running a captured statement straight through knex (no HTTP). */
export async function timeQuery(db: Db, q: CapturedQuery, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    await db.raw(q.sql, q.bindings);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}
