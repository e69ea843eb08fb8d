import fs from 'node:fs';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';

/** How a reading connection to an SQLite file is set up. */
export interface SqliteReadSettings {
  /** How much of the file reads may map into memory. */
  mmapBytes: number;
  /** How long a statement waits for another connection's lock (on the server thread, the event loop waits with it). */
  busyTimeoutMs: number;
}

/**
 * A connection of its own to an SQLite file, on the server thread, for point reads that must not
 * pay knex's runner and pool (a single-file GET's row: the runner, the pool's acquire and the
 * statement-cache look-up cost about as much as the read). Its statements are compiled once and
 * kept for the life of the connection; better-sqlite3 runs them synchronously, so one is never
 * busy when it is used again. In WAL mode (set by the main connection) it reads what has been
 * committed, one snapshot per statement, while a sync writes; the busy timeout waits out the rare
 * lock a reader meets (WAL recovery), no longer than a serving statement may take. It opens on first use, once the file exists (the main
 * connection creates it), and runs read statements only.
 */
export class SqliteReadHandle {
  private connection: BetterSqlite3.Database | undefined;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly settings: SqliteReadSettings,
  ) {}

  /** `sql`'s statement on this connection; undefined while the file does not exist, or once closed. */
  statement(sql: string): BetterSqlite3.Statement | undefined {
    const kept = this.statements.get(sql);
    if (kept) return kept;
    const connection = this.open();
    if (!connection) return undefined;
    const statement = connection.prepare(sql);
    if (!statement.reader) throw new Error('the SQLite read handle runs read statements only');
    this.statements.set(sql, statement);
    return statement;
  }

  close(): void {
    this.closed = true;
    this.statements.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  private open(): BetterSqlite3.Database | undefined {
    if (this.connection || this.closed || !fs.existsSync(this.file)) return this.connection;
    const connection = new Database(this.file, { fileMustExist: true, timeout: this.settings.busyTimeoutMs });
    connection.pragma(`mmap_size = ${this.settings.mmapBytes}`);
    this.connection = connection;
    return connection;
  }
}
