import { ReadWorker } from './read-worker';
import type { SqliteReadSettings } from './sqlite-read-handle';

/**
 * The worker's code (see `ReadWorker`). It opens its
 * own connection to the database file, runs only read statements (kept compiled by SQL text), and
 * hands buffers back without copying when they own their memory. An error keeps its code (SQLite's
 * `SQLITE_BUSY`: the file is locked), so it is classified as on the server thread.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
  db.pragma('mmap_size = ' + workerData.mmapBytes);
} catch (error) {
  parentPort.postMessage({ fatal: String(error && error.message || error) });
  process.exit(1);
}
const statements = new Map();
parentPort.on('message', ({ id, sql, bindings, close, deadline }) => {
  if (close) {
    db.close();
    process.exit(0);
  }
  // Its caller stopped waiting (the statements before it waited out a lock): not run, so a queue
  // of them does not keep the worker busy after the lock is gone.
  if (deadline && Date.now() > deadline) {
    parentPort.postMessage({ id, error: 'not run: its caller stopped waiting', code: 'DATABASE_TIMEOUT' });
    return;
  }
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (!statement.reader) throw new Error('the read worker runs read statements only');
      if (statements.size >= 64) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    const rows = statement.all(...bindings);
    const transfer = [];
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (value instanceof Uint8Array && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength) transfer.push(value.buffer);
      }
    }
    parentPort.postMessage({ id, rows }, transfer);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message || error), code: error && typeof error.code === 'string' ? error.code : undefined });
  }
});
`;

/**
 * Runs read queries on an SQLite file in a worker thread, off the event loop. better-sqlite3 is
 * synchronous: a list page's aggregate query would otherwise hold the event loop for its whole
 * run, and every other request (downloads, health checks) would wait behind it. In WAL mode the
 * worker's connection reads what has been committed, as the main connection does, one snapshot per
 * statement. If the worker fails, callers get an error and the worker is not used again.
 */
export class SqliteReadWorker extends ReadWorker {
  constructor(file: string, settings: SqliteReadSettings) {
    super('SQLite read worker', WORKER_SOURCE, {
      file,
      mmapBytes: settings.mmapBytes,
      busyTimeoutMs: settings.busyTimeoutMs,
      driver: require.resolve('better-sqlite3'),
    });
  }
}
