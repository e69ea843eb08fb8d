import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import knex, { type Knex } from 'knex';
import { parse } from 'pg-connection-string';
import type { ReadWorker } from './read-worker';
import { KNEX_LOG } from '../../lib/knex-log';
import { SqliteReadHandle } from './sqlite-read-handle';
import { SqliteReadWorker } from './sqlite-read-worker';
import { cacheStatements } from './statement-cache';
import { PgConnectionWatch } from './watch-pg-connections';

export type Db = Knex;

export interface DbOptions {
  /** `postgres://…`; absent means the embedded SQLite database at `sqlitePath`. */
  databaseUrl?: string | undefined;
  sqlitePath: string;
  /** Postgres schema to use (tests isolate themselves in a schema of their own). */
  searchPath?: string;
  /** Postgres connections this process opens at most (default 20): knex's pool, which every statement, list pages included, runs on. */
  maxConnections?: number;
  /** How long the database may take to answer (absent or 0: as long as it takes). */
  timeouts?: Partial<DatabaseTimeouts>;
}

/**
 * Bounds on waiting for the database, so that one which stops answering fails requests (503) in
 * bounded time instead of holding them.
 */
export interface DatabaseTimeouts {
  /** Postgres: ms opening a connection may take (TCP, TLS, start-up, authentication, knex's set-up of the session). */
  connectMs: number;
  /**
   * ms a statement may run. Postgres: the sessions' `statement_timeout` (the server cancels it,
   * 57014), and `ANSWER_GRACE_MS` later the gateway stops waiting for a server that does not answer
   * at all and drops the connection. SQLite: how long a statement waits for a lock (its busy
   * timeout, never above `SQLITE_BUSY_TIMEOUT_MS`), and the bound on a list page read off-thread.
   * Meant for serving: syncs and migrations run statements that may rightly take longer.
   */
  statementMs: number;
}

/**
 * How much longer than its statement timeout the gateway waits for an answer: a live server has
 * cancelled the statement by then and said so; one that has not answered in this time is not
 * answering at all (stopped, or the network lost), and its connection is dropped.
 */
export const ANSWER_GRACE_MS = 1000;

/** How long an SQLite statement waits for another connection's lock, at most (its busy timeout). */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

const DEFAULT_MAX_CONNECTIONS = 20;

/**
 * Settings of every Postgres session the gateway opens. JIT compilation off: it is decided when a
 * statement is planned, by estimated cost, and a prepared list page's generic plan is estimated
 * for a tenth of the table (its limit is a parameter), so on a large table every page would
 * compile its expressions to machine code, milliseconds each, for a read of a hundred rows.
 */
export const PG_SESSION_OPTIONS = '-c jit=off';

/**
 * How much of the SQLite file reads may map into memory instead of copying through SQLite's own
 * page cache (1 GiB). Mapped pages live in the OS page cache, shared and reclaimable, so this is
 * an address-space ceiling rather than memory the process keeps; it makes a list page's row
 * reads plain memory loads once the file is warm.
 */
export const SQLITE_MMAP_BYTES = 1024 * 1024 * 1024;

const readWorkers = new WeakMap<Db, ReadWorker>();
const readHandles = new WeakMap<Db, SqliteReadHandle>();
const answerBounds = new WeakMap<Db, number>();
const connectionWatches = new WeakMap<Db, PgConnectionWatch>();

/** The server thread's own connection for this SQLite file's point reads (none for Postgres or `:memory:`). */
export function sqliteReadHandle(db: Db): SqliteReadHandle | undefined {
  return readHandles.get(db);
}

/** The worker that runs this SQLite file's list pages off the event loop (none for Postgres or `:memory:`). */
export function readWorker(db: Db): ReadWorker | undefined {
  return readWorkers.get(db);
}

/** ms the gateway waits for the answer to one statement on this database before it gives up on it (0: no bound). */
export function answerBound(db: Db): number {
  return answerBounds.get(db) ?? 0;
}

/** What tells of this Postgres database's dead connections (none for SQLite). */
export function pgConnectionWatch(db: Db): PgConnectionWatch | undefined {
  return connectionWatches.get(db);
}

/** Answers once the database answers a query on knex's pool; rejects otherwise. */
export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}

/**
 * Gives each of knex's statements on `db` a bound on its answer (knex's own `timeout`: past it the
 * statement fails with `KnexTimeoutError` and its connection is never used again), set as knex
 * starts running it, so every builder and raw statement has it.
 */
function boundEveryStatement(db: Db, ms: number): void {
  db.on('start', (builder: { timeout?: (ms: number) => unknown }) => {
    if (typeof builder.timeout === 'function') builder.timeout(ms);
  });
}

/** Runs `close` before knex's own teardown whenever `db.destroy()` runs. */
function closeBeforeDestroy(db: Db, close: () => Promise<void>): Db {
  // `db.destroy()` hands over to the client's `destroy`.
  const client = db.client as { destroy(...args: unknown[]): Promise<unknown> };
  const destroy = client.destroy.bind(client);
  client.destroy = async (...args: unknown[]) => {
    await close();
    return destroy(...args);
  };
  return db;
}

/** Gives `db` a read worker and a read handle, closed before the database when `db.destroy()` runs. */
function attachReadWorker(db: Db, worker: ReadWorker, handle: SqliteReadHandle): Db {
  readHandles.set(db, handle);
  readWorkers.set(db, worker);
  return closeBeforeDestroy(db, async () => {
    handle.close();
    await worker.close();
  });
}

/** knex on Postgres (node-postgres), at most `maxConnections` connections. */
function createPostgresDb(databaseUrl: string, options: DbOptions): Db {
  const max = Math.max(1, Math.floor(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS));
  const connectMs = options.timeouts?.connectMs ?? 0;
  const statementMs = options.timeouts?.statementMs ?? 0;
  const answerMs = statementMs > 0 ? statementMs + ANSWER_GRACE_MS : 0;
  // The URL's own settings, as node-postgres reads them, its `options` kept beside the gateway's,
  // and the bounds: node-postgres sends `statement_timeout` with the session's start-up.
  const target = parse(databaseUrl);
  const connection = {
    ...target,
    options: [target.options, PG_SESSION_OPTIONS].filter(Boolean).join(' '),
    ...(statementMs > 0 ? { statement_timeout: statementMs } : {}),
    ...(connectMs > 0 ? { connectionTimeoutMillis: connectMs } : {}),
  };
  const watch = new PgConnectionWatch();
  const db = knex({
    client: 'pg',
    log: KNEX_LOG,
    connection: connection as Knex.PgConnectionConfig,
    searchPath: options.searchPath ? [options.searchPath] : undefined,
    // A statement waits for a connection at most as long as one statement may take, plus opening one.
    ...(answerMs > 0 ? { acquireConnectionTimeout: answerMs + connectMs } : {}),
    pool: {
      min: 0,
      max,
      // Opening a connection includes knex's own set-up statements (version, search path), which node-postgres's bound does not cover.
      ...(connectMs > 0 ? { createTimeoutMillis: connectMs } : {}),
      afterCreate: watch.afterCreate,
    },
  });
  watch.watch(db);
  connectionWatches.set(db, watch);
  if (answerMs > 0) {
    answerBounds.set(db, answerMs);
    boundEveryStatement(db, answerMs);
  }
  return db;
}

export function isPostgres(db: Db): boolean {
  return db.client.config.client === 'pg';
}

/**
 * Creates a knex instance; connects lazily, so creating one does no I/O beyond making the SQLite
 * folder (and reading the TLS files a Postgres URL names).
 */
export function createDb(options: DbOptions): Db {
  if (options.databaseUrl) return createPostgresDb(options.databaseUrl, options);
  if (options.sqlitePath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(options.sqlitePath)), { recursive: true });
  const statementMs = options.timeouts?.statementMs ?? 0;
  // A statement on the server thread holds the event loop while it waits for a lock: no longer than a statement may take.
  const busyMs = statementMs > 0 ? Math.min(SQLITE_BUSY_TIMEOUT_MS, statementMs) : SQLITE_BUSY_TIMEOUT_MS;
  const db = knex({
    client: 'better-sqlite3',
    log: KNEX_LOG,
    connection: { filename: options.sqlitePath },
    useNullAsDefault: true,
    pool: {
      afterCreate(conn: BetterSqlite3.Database, done: (err: Error | null, conn: unknown) => void) {
        // The busy timeout waits out another connection's lock, first of all for the switch to WAL
        // (better-sqlite3 opens with 5 s); WAL lets the gateway read while a sync writes.
        conn.pragma(`busy_timeout = ${busyMs}`);
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('foreign_keys = ON');
        if (options.sqlitePath !== ':memory:') conn.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
        cacheStatements(conn);
        done(null, conn);
      },
    },
  });
  if (options.sqlitePath === ':memory:') return db;
  if (statementMs > 0) answerBounds.set(db, statementMs + ANSWER_GRACE_MS);
  const file = path.resolve(options.sqlitePath);
  const connection = { mmapBytes: SQLITE_MMAP_BYTES, busyTimeoutMs: busyMs };
  return attachReadWorker(db, new SqliteReadWorker(file, connection), new SqliteReadHandle(file, connection));
}
