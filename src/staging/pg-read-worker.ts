import { ReadWorker } from './read-worker';

/**
 * The worker's code (see `ReadWorker`). A `pg` pool of its own, with the search path knex sets on
 * its connections (set once on each new connection before its first statement); each statement runs as a named prepared statement when it has a name. Text
 * columns asked for as bytes come back encoded as UTF-8, in buffers of their own that move to the
 * main thread without a copy.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require(workerData.driver);
const pool = new Pool({ connectionString: workerData.url, options: workerData.options, max: workerData.connections, idleTimeoutMillis: 10000 });
// A connection that fails while idle is dropped by the pool; its error must not end the worker.
pool.on('error', () => undefined);
const setPath = workerData.searchPath.length === 0 ? undefined
  : 'set search_path to ' + workerData.searchPath.map((s) => '"' + s.replace(/"/g, '""') + '"').join(',');
const ready = new WeakSet();
/** Runs one statement on a pooled connection, setting the search path first on a new one. */
async function query(config) {
  const client = await pool.connect();
  let failed;
  try {
    if (setPath && !ready.has(client)) {
      await client.query(setPath);
      ready.add(client);
    }
    return await client.query(config);
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    // A connection whose statement broke it is closed rather than reused.
    client.release(failed && !('severity' in failed) ? failed : undefined);
  }
}
parentPort.on('message', ({ id, sql, bindings, name, bytes, close }) => {
  if (close) {
    pool.end().finally(() => process.exit(0));
    return;
  }
  query(name ? { name, text: sql, values: bindings } : { text: sql, values: bindings }).then(
    ({ rows }) => {
      const transfer = [];
      for (const row of rows) {
        for (const column of bytes || []) {
          if (typeof row[column] !== 'string') continue;
          const buffer = Buffer.from(row[column], 'utf8');
          row[column] = buffer;
          if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) transfer.push(buffer.buffer);
        }
      }
      parentPort.postMessage({ id, rows }, transfer);
    },
    (error) => parentPort.postMessage({ id, error: String(error && error.message || error) }),
  );
});
`;

/**
 * Runs read queries on Postgres in a worker thread: the driver's work (writing the statement,
 * reading and parsing the answer's protocol messages, decoding its text) happens off the event
 * loop, and the server thread receives the rows, with a list page's assembled JSON as bytes, as it
 * does from `SqliteReadWorker`. The worker has a pool of its own (at most `connections`, beside
 * knex's: `postgresPools` splits a process's budget; with 5 of 10, pages waited for a connection
 * under 20 clients, 400-1,636 against 854-2,100 req/s with 10 of 20 on the loaded 2-core machine), on the same server, database and search path; every statement
 * reads what was committed when it started, as on knex's connections. If the worker fails,
 * callers get an error and it is not used again.
 */
export class PgReadWorker extends ReadWorker {
  /** `options`: the sessions' settings, as the server's command-line options (`-c name=value`). */
  constructor(url: string, searchPath: readonly string[], connections: number, options: string) {
    super('Postgres read worker', WORKER_SOURCE, { url, searchPath: [...searchPath], connections, options, driver: require.resolve('pg') });
  }
}
