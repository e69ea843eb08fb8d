import path from 'node:path';
import type { AdapterContext } from '../adapter';
import { isAbortError } from '../../lib/abort-error';
import { isDatabaseUnavailable } from '../../lib/database-unavailable';
import { SourceError, SourceUnavailableError } from '../source-error';
import { KNEX_LOG } from '../../lib/knex-log';
import knex, { type Knex } from 'knex';
import { types as pgTypes } from 'pg';

export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';

/** A database the adapter reads: which dialect, and how knex reaches it. */
export interface SqlConnection {
  dialect: SqlDialect;
  /** The URL with any password replaced by `***`, for logs and errors. */
  redacted: string;
  knexConfig: Knex.Config;
}

const DIALECT_OF: Readonly<Record<string, SqlDialect>> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
  'sqlite:': 'sqlite',
  'file:': 'sqlite',
};

export function redactDatabaseUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

/**
 * Parses `SQL_DATABASE_URL`: `postgres://user:pass@host:5432/db`, `mysql://` or `mariadb://`
 * (the mysql2 driver), or `sqlite:path/to/file.db` / `file:` (better-sqlite3, opened read-only).
 * Throws an Error that never contains the password.
 */
export function parseDatabaseUrl(url: string): SqlConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('expected a URL such as postgres://user@host:5432/db, mysql://user@host:3306/db or sqlite:path/to/file.db');
  }
  const dialect = DIALECT_OF[parsed.protocol];
  if (!dialect) throw new Error(`unsupported scheme ${JSON.stringify(parsed.protocol)}: expected postgres:, mysql:, mariadb: or sqlite:`);
  const redacted = redactDatabaseUrl(url);
  // Small pools: the adapter reads one query at a time; a listing and a page may overlap.
  const pool = { min: 0, max: 2 };
  if (dialect === 'sqlite') {
    const file = decodeURIComponent(url.replace(/^(sqlite|file):(\/\/)?/, ''));
    if (file === '') throw new Error('expected a file after sqlite:, e.g. sqlite:data/source.db');
    return {
      dialect,
      redacted,
      knexConfig: {
        client: 'better-sqlite3',
        connection: { filename: path.resolve(file), options: { readonly: true } },
        useNullAsDefault: true,
        pool: { min: 0, max: 1 },
      },
    };
  }
  if (dialect === 'postgres') {
    return {
      dialect,
      redacted,
      knexConfig: {
        client: 'pg',
        connection: { connectionString: url.replace(/^postgresql:/, 'postgres:'), types: { getTypeParser: postgresTypeParser } },
        pool: { ...pool, afterCreate: utcSession("SET TIME ZONE 'UTC'") },
      },
    };
  }
  const connection: Knex.MySql2ConnectionConfig = {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database: decodeURIComponent(parsed.pathname.replace(/^\//, '')),
    // Dates are read and written as UTC, whatever the machine's zone.
    timezone: 'Z',
    // BIGINT as a number when it fits one exactly (else text), like Postgres' int8 below.
    supportBigNumbers: true,
    bigNumberStrings: false,
  };
  return { dialect, redacted, knexConfig: { client: 'mysql2', connection, pool: { ...pool, afterCreate: utcSession("SET time_zone = '+00:00'") } } };
}

const INT8_OID = 20;

/** An int8 (`bigint`) as a number when it fits one exactly: policies order numbers, and would order the text '9' after '10'. */
function parseInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** pg's own parsers, except int8 (pg returns it as text so as to never round it). */
function postgresTypeParser(oid: number, format: string): (value: string) => unknown {
  if (oid === INT8_OID && format !== 'binary') return parseInt8;
  return pgTypes.getTypeParser(oid, format === 'binary' ? 'binary' : 'text') as (value: string) => unknown;
}

type PoolConnection = { query(sql: string, callback: (error: Error | null) => void): void };

/** Sessions in UTC: timestamps read as text (checkpoints) never shift with the server's zone. */
function utcSession(statement: string) {
  return function afterCreate(connection: PoolConnection, done: (error: Error | null, connection: PoolConnection) => void): void {
    connection.query(statement, (error) => done(error, connection));
  };
}

/** Opens a knex pool for one run; the caller destroys it. No I/O happens until the first query. */
export function openDatabase(connection: SqlConnection): Knex {
  return knex({ ...connection.knexConfig, log: KNEX_LOG });
}

/** A database error as a SourceError naming the database (its password masked); unavailable for network errors. Aborts and SourceErrors pass. */
export function sourceErrorOf(error: unknown, connection: SqlConnection): unknown {
  if (isAbortError(error) || error instanceof SourceError) return error;
  const message = `${connection.redacted}: ${(error as Error).message}`;
  return isDatabaseUnavailable(error) ? new SourceUnavailableError(message, { cause: error }) : new SourceError(message, { cause: error });
}

/** Every statement run on the source, at debug level: its SQL text only, never the values bound to it. */
export function logQueries(db: Knex, ctx: AdapterContext, source: string): void {
  db.on('query', (query: { sql: string }) => ctx.logger.debug({ source, sql: query.sql }, 'sql: query'));
}
