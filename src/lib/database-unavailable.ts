/** Codes of a connection that could not be made or was lost: the operating system's and mysql2's. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
]);

/**
 * Postgres SQLSTATEs of a server that is not taking work or ended a session: shutting down, crashed,
 * starting up, out of connections, a session closed for idling (57P05; 25P03 in a transaction), and
 * a statement cancelled (57014: its `statement_timeout` passed, or a cancel request) or out of time
 * for a lock (55P03: `lock_timeout`).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57P05', '53300', '25P03', '57014', '55P03']);

/** The code of `DatabaseTimeoutError`. */
const DATABASE_TIMEOUT = 'DATABASE_TIMEOUT';

/**
 * The gateway stopped waiting for the database: no answer came within its own bound (a server or
 * network that has stopped answering, where the server's own timeouts cannot fire).
 */
export class DatabaseTimeoutError extends Error {
  readonly code = DATABASE_TIMEOUT;

  constructor(what: string, ms: number) {
    super(`${what}: the database gave no answer within ${ms} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

/** Errors a driver reported as a lost or failed connection without giving them a code (see `markConnectionLost`). */
const lostConnectionErrors = new WeakSet<object>();

/**
 * Records that `error` is a lost or failed connection. node-postgres gives such errors no code
 * (`Connection terminated unexpectedly`, `… not queryable`, its connect timeout): it reports them
 * as a connection's `error` event, a failed connection attempt or a statement on a dead
 * connection, which is where the staging database marks them (never by their text).
 */
export function markConnectionLost(error: unknown): void {
  if (typeof error === 'object' && error !== null) lostConnectionErrors.add(error);
}

/**
 * Whether `error` says a database (the staging one, or a SQL source) cannot be reached now (rather than that a statement
 * is wrong): a refused, lost or timed-out connection (a code, or marked by `markConnectionLost`), a
 * server shutting down, crashed or starting up (SQLSTATE class 08, 57P01-57P03), one out of
 * connections (53300) or that ended an idle session, a statement out of time (57014, 55P03, or the
 * gateway's own bound: `DatabaseTimeoutError`), knex's pool out of time to get a connection, or
 * SQLite's file still locked after its busy timeout. Such a request may succeed if retried later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (lostConnectionErrors.has(error)) return true;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code !== 'string') return false;
  return (
    code === DATABASE_TIMEOUT ||
    CONNECTION_CODES.has(code) ||
    UNAVAILABLE_STATES.has(code) ||
    /^08[0-9A-Z]{3}$/.test(code) ||
    code === 'SQLITE_BUSY' ||
    code.startsWith('SQLITE_BUSY_')
  );
}
