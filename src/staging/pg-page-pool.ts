import postgres from 'postgres';
import { DatabaseTimeoutError } from '../lib/database-unavailable';
import { withDeadline } from '../lib/with-deadline';

/** A row as the page pool returns it: each column's bytes as Postgres sent them (text format), or null. */
export type RawRow = ReadonlyArray<Buffer | null>;

export interface PgPagePoolOptions {
  /** The settings knex's sessions connect with (`DATABASE_URL` parsed, its `options` holding the gateway's own too). */
  connection: Record<string, unknown>;
  /** The schema the sessions read (knex's `searchPath`). */
  searchPath?: string | undefined;
  /** Connections it opens at most. */
  max: number;
  /** ms opening a connection may take (0: postgres.js's default, 30 s). */
  connectMs?: number;
  /** ms it waits for a statement's answer (0: as long as it takes); past it the pool's connections are dropped. */
  answerMs?: number;
}

/** What node-postgres resolves a connection string to, with the environment (`PG*`) and its defaults. */
interface PgConnectionParameters {
  user?: string;
  database?: string;
  port: number;
  host?: string;
  password?: string | null;
  ssl?: unknown;
  isDomainSocket: boolean;
  options?: string;
  application_name?: string;
  fallback_application_name?: string;
  statement_timeout?: number | false;
  lock_timeout?: number | false;
  idle_in_transaction_session_timeout?: number | false;
}

// node-postgres's own resolver and its `.pgpass` reader, so both pools reach the same server as the same user.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ConnectionParameters = require('pg/lib/connection-parameters') as new (config: Record<string, unknown>) => PgConnectionParameters;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgpass = require('pgpass') as (parameters: PgConnectionParameters, found: (password?: string) => void) => void;

/** A schema name for `search_path`, quoted (its quotes doubled) only where Postgres would quote it, so the setting reads as knex's `SET` leaves it. */
function identifier(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/**
 * The startup parameters node-postgres sends for these settings (`getStartupConf`), plus the
 * schema as one more `-c` in `options`: everything travels as `options`, `application_name` and
 * the timeouts, as knex's sessions send it, so a pooler that accepts one accepts the other.
 */
function startupParameters(p: PgConnectionParameters, searchPath: string | undefined): Record<string, string> {
  const schema = searchPath ? `-c search_path=${identifier(searchPath)}` : '';
  const options = [p.options, schema].filter(Boolean).join(' ');
  const parameters: Record<string, string> = {};
  if (options) parameters.options = options;
  parameters.application_name = p.application_name || p.fallback_application_name || 'content-gateway pages';
  for (const key of ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'] as const) {
    const value = p[key];
    if (value) parameters[key] = String(value);
  }
  return parameters;
}

/**
 * Where to connect, in postgres.js's terms: a socket directory as the socket's path; a host and
 * port as one-element lists, which postgres.js takes as they are (its types say a string) where it
 * would split a string at its colons and so break an IPv6 literal.
 */
function target(p: PgConnectionParameters): { path: string } | { host: string; port: number } {
  if (p.isDomainSocket) return { path: `${p.host ?? ''}/.s.PGSQL.${p.port}` };
  return { host: [p.host ?? 'localhost'] as unknown as string, port: [p.port] as unknown as number };
}

/**
 * The Postgres pool list pages are read on: postgres.js, beside knex's node-postgres pool. Under
 * concurrent pages it pipelines statements on its connections (several in one write, answered in
 * order), prepares each text once per connection, and hands the rows back as the bytes Postgres
 * sent (`raw()`), so a page's stored JSON goes to the socket without being decoded to strings and
 * encoded again: the server thread spends about a tenth less CPU on a page (kit/bench/HISTORY.md). The
 * connection settings are node-postgres's own resolution of the same URL and environment (host or
 * socket, user, password or `.pgpass`, database, TLS, session options, timeouts), so its sessions
 * match knex's: same server, same schema, JIT off.
 */
export class PgPagePool {
  private sql: postgres.Sql;
  private readonly open: () => postgres.Sql;
  private readonly answerMs: number;

  constructor(options: PgPagePoolOptions) {
    const p = new ConnectionParameters(options.connection);
    const password = p.password;
    this.answerMs = options.answerMs ?? 0;
    this.open = () =>
      postgres({
        ...target(p),
        user: p.user,
        pass: typeof password === 'string' ? password : () => new Promise<string>((resolve) => pgpass(p, (found) => resolve(found ?? ''))),
        database: p.database,
        ssl: (p.ssl ?? false) as postgres.Options<Record<string, never>>['ssl'],
        max: Math.max(1, Math.floor(options.max)),
        // Idle connections close after 30 s, as knex's pool closes its own.
        idle_timeout: 30,
        // In seconds; postgres.js fails the attempt with CONNECT_TIMEOUT.
        ...(options.connectMs ? { connect_timeout: options.connectMs / 1000 } : {}),
        connection: startupParameters(p, options.searchPath),
        // Nothing here reads arrays of custom types: no catalogue query when a connection opens.
        fetch_types: false,
        onnotice: () => undefined,
      });
    this.sql = this.open();
  }

  /**
   * Runs native SQL (`$1`, …) as a prepared statement; the rows' columns as raw bytes, in select order.
   * Answered within `answerMs`, or fails with `DatabaseTimeoutError`: the server has not even
   * cancelled it for its `statement_timeout`, so it is not answering, and every statement queued
   * on the pool's connections waits behind one that may never end. postgres.js cannot drop one
   * connection, so the whole pool is replaced (`replace`): its statements fail with
   * CONNECTION_DESTROYED, and new ones open new connections.
   */
  async rawRows(sql: string, bindings: readonly unknown[]): Promise<RawRow[]> {
    const pool = this.sql;
    const rows = pool.unsafe(sql, [...bindings] as postgres.ParameterOrJSON<never>[], { prepare: true }).raw() as unknown as Promise<RawRow[]>;
    return withDeadline(rows, this.answerMs, () => {
      this.replace(pool);
      return new DatabaseTimeoutError('a list page', this.answerMs);
    });
  }

  /** Closes its connections, letting running statements finish (up to 5 s). */
  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }

  /** A new pool in place of `stale` (unless one replaced it already), whose connections are destroyed now. */
  private replace(stale: postgres.Sql): void {
    if (this.sql !== stale) return;
    this.sql = this.open();
    void stale.end({ timeout: 0 });
  }
}
