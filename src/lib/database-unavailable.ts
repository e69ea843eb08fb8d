/** Codes of a connection that could not be made or was lost: the operating system's, postgres.js's and mysql2's. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'PROTOCOL_CONNECTION_LOST',
]);

/** Postgres SQLSTATEs of a server that is not taking work: shutting down, starting up, out of connections. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * Whether `error` says a database (the staging one, or a SQL source) cannot be reached now (rather than that a statement
 * is wrong): a refused, lost or timed-out connection, a server shutting down or starting up
 * (SQLSTATE class 08, 57P01-57P03), one out of connections (53300), knex's pool out of time to
 * get one, or SQLite's file still locked after its busy timeout. Such a request may succeed if
 * retried later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (name === 'KnexTimeoutError') return true;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || code === 'SQLITE_BUSY';
}
