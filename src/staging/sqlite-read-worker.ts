import { ReadWorker } from './read-worker';

/**
 * The worker's code (see `ReadWorker`). It opens its
 * own connection to the database file, runs only read statements (kept compiled by SQL text), and
 * hands buffers back without copying when they own their memory.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('mmap_size = ' + workerData.mmapBytes);
} catch (error) {
  parentPort.postMessage({ fatal: String(error && error.message || error) });
  process.exit(1);
}
const statements = new Map();
parentPort.on('message', ({ id, sql, bindings, close }) => {
  if (close) {
    db.close();
    process.exit(0);
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
    parentPort.postMessage({ id, error: String(error && error.message || error) });
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
  constructor(file: string, mmapBytes: number) {
    super('SQLite read worker', WORKER_SOURCE, { file, mmapBytes, driver: require.resolve('better-sqlite3') });
  }
}
