import { parse } from 'pg-connection-string';
import postgres from 'postgres';

/** A row as the page pool returns it: each column's bytes as Postgres sent them (text format), or null. */
export type RawRow = ReadonlyArray<Buffer | null>;

export interface PgPagePoolOptions {
  /** The gateway's `DATABASE_URL`, read by node-postgres's own parser so both pools reach the same server. */
  databaseUrl: string;
  /** The schema the sessions read (knex's `searchPath`). */
  searchPath?: string | undefined;
  /** Connections it opens at most. */
  max: number;
}

/** A schema name as an identifier for `search_path` (quoted, its quotes doubled). */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The Postgres pool list pages are read on: postgres.js, beside knex's node-postgres pool. Under
 * concurrent pages it pipelines statements on its connections (several in one write, answered in
 * order), prepares each text once per connection, and hands the rows back as the bytes Postgres
 * sent (`raw()`), so a page's stored JSON goes to the socket without being decoded to strings and
 * encoded again. Against node-postgres on the same page query (20 concurrent loops, 4 connections),
 * it cost 167-181 µs of CPU a page instead of 241-314 and ran 4,700-5,000 pages a second instead
 * of 3,000-3,800 (bench/README.md). Its sessions are set up like knex's: JIT off, the same schema.
 */
export class PgPagePool {
  private readonly sql: postgres.Sql;

  constructor(options: PgPagePoolOptions) {
    const target = parse(options.databaseUrl);
    // The URL's `application_name`, when it names one, as knex's sessions have it (operators count
    // a gateway's connections by it).
    const applicationName = typeof target.application_name === 'string' ? target.application_name : 'content-gateway pages';
    const connection: Record<string, string> = { jit: 'off', application_name: applicationName };
    if (options.searchPath) connection.search_path = quoteIdentifier(options.searchPath);
    this.sql = postgres({
      host: target.host ?? undefined,
      port: target.port ? Number(target.port) : undefined,
      user: target.user,
      pass: target.password,
      database: target.database ?? undefined,
      ssl: (target.ssl ?? false) as postgres.Options<Record<string, never>>['ssl'],
      max: Math.max(1, Math.floor(options.max)),
      // Idle connections close after 30 s, as knex's pool closes its own.
      idle_timeout: 30,
      connection,
      // Nothing here reads arrays of custom types: no catalogue query when a connection opens.
      fetch_types: false,
      onnotice: () => undefined,
    });
  }

  /** Runs native SQL (`$1`, …) as a prepared statement; the rows' columns as raw bytes, in select order. */
  async rawRows(sql: string, bindings: readonly unknown[]): Promise<RawRow[]> {
    return (await this.sql.unsafe(sql, [...bindings] as postgres.ParameterOrJSON<never>[], { prepare: true }).raw()) as unknown as RawRow[];
  }

  /** Closes its connections, letting running statements finish (up to 5 s). */
  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }
}
