import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import knex, { type Knex } from 'knex';
import { parse } from 'pg-connection-string';
import { PgPagePool } from './pg-page-pool';
import type { ReadWorker } from './read-worker';
import { SqliteReadHandle } from './sqlite-read-handle';
import { SqliteReadWorker } from './sqlite-read-worker';
import { cacheStatements } from './statement-cache';

export type Db = Knex;

export interface DbOptions {
  /** `postgres://…`; absent means the embedded SQLite database at `sqlitePath`. */
  databaseUrl?: string | undefined;
  sqlitePath: string;
  /** Postgres schema to use (tests isolate themselves in a schema of their own). */
  searchPath?: string;
  /**
   * Postgres connections this process opens at most (default 20), split between the list-page pool
   * (half, rounded up) and knex's pool (the rest, at least one).
   */
  maxConnections?: number;
  /** Postgres: read list pages on a pool of their own (`PgPagePool`; default true). Commands that serve no pages leave it out and give knex all the connections. */
  listPagePool?: boolean;
}

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
const pagePools = new WeakMap<Db, PgPagePool>();

/** The server thread's own connection for this SQLite file's point reads (none for Postgres or `:memory:`). */
export function sqliteReadHandle(db: Db): SqliteReadHandle | undefined {
  return readHandles.get(db);
}

/** The worker that runs this SQLite file's list pages off the event loop (none for Postgres or `:memory:`). */
export function readWorker(db: Db): ReadWorker | undefined {
  return readWorkers.get(db);
}

/** The Postgres pool this database's list pages are read on (none for SQLite). */
export function pgPagePool(db: Db): PgPagePool | undefined {
  return pagePools.get(db);
}

/** Answers once the database answers a query on each of its pools (knex's and, on Postgres, the list pages'); rejects otherwise. */
export async function pingDb(db: Db): Promise<void> {
  await Promise.all([db.raw('select 1'), pgPagePool(db)?.rawRows('select 1', [])]);
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

/** knex on Postgres, with the list-page pool beside it (unless `listPagePool` is false); the two share `maxConnections`. */
function createPostgresDb(databaseUrl: string, options: DbOptions): Db {
  const max = Math.max(1, Math.floor(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS));
  const pages = Math.ceil(max / 2);
  // The URL's own settings, as node-postgres reads them, its `options` kept beside the gateway's.
  const target = parse(databaseUrl);
  const connection = { ...target, options: [target.options, PG_SESSION_OPTIONS].filter(Boolean).join(' ') };
  const db = knex({
    client: 'pg',
    connection: connection as Knex.PgConnectionConfig,
    searchPath: options.searchPath ? [options.searchPath] : undefined,
    pool: { min: 0, max: options.listPagePool === false ? max : Math.max(1, max - pages) },
  });
  if (options.listPagePool === false) return db;
  const pool = new PgPagePool({ connection, searchPath: options.searchPath, max: pages });
  pagePools.set(db, pool);
  return closeBeforeDestroy(db, () => pool.close());
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
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: options.sqlitePath },
    useNullAsDefault: true,
    pool: {
      afterCreate(conn: BetterSqlite3.Database, done: (err: Error | null, conn: unknown) => void) {
        // WAL lets the gateway read while a sync writes; the busy timeout waits out a writer's lock.
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('busy_timeout = 5000');
        conn.pragma('foreign_keys = ON');
        if (options.sqlitePath !== ':memory:') conn.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
        cacheStatements(conn);
        done(null, conn);
      },
    },
  });
  if (options.sqlitePath === ':memory:') return db;
  const file = path.resolve(options.sqlitePath);
  return attachReadWorker(db, new SqliteReadWorker(file, SQLITE_MMAP_BYTES), new SqliteReadHandle(file, SQLITE_MMAP_BYTES));
}
