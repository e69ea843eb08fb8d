import { Worker } from 'node:worker_threads';

/**
 * The worker's code. Plain CommonJS run with `eval`, so the same text works from the compiled
 * build, under tsx and under ts-jest (a worker gets none of their TypeScript loaders). It opens its
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
parentPort.on('message', ({ id, sql, bindings }) => {
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

interface Pending {
  resolve(rows: Array<Record<string, unknown>>): void;
  reject(error: Error): void;
}

/**
 * Runs read queries on an SQLite file in a worker thread, off the event loop. better-sqlite3 is
 * synchronous: a list page's aggregate query would otherwise hold the event loop for its whole
 * run, and every other request (downloads, health checks) would wait behind it. In WAL mode the
 * worker's connection reads what has been committed, as the main connection does, one snapshot per
 * statement. If the worker fails, callers get an error and the worker is not used again.
 */
export class SqliteReadWorker {
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failed = false;

  constructor(
    private readonly file: string,
    private readonly mmapBytes: number,
  ) {}

  /** False once the worker failed or was closed: run the query on the main connection instead. */
  get usable(): boolean {
    return !this.failed;
  }

  all(sql: string, bindings: ReadonlyArray<unknown>): Promise<Array<Record<string, unknown>>> {
    if (this.failed) return Promise.reject(new Error('the SQLite read worker is not available'));
    const worker = this.start();
    const id = this.nextId++;
    // Referenced while a query is out, so a caller awaiting it keeps the process alive.
    if (this.pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, sql, bindings });
    });
  }

  async close(): Promise<void> {
    this.failed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.fail(new Error('the SQLite read worker was closed'));
    await worker?.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, mmapBytes: this.mmapBytes, driver: require.resolve('better-sqlite3') },
    });
    const broken = (why: string): void => {
      this.failed = true;
      this.worker = undefined;
      this.fail(new Error(`the SQLite read worker failed: ${why}`));
    };
    worker.on('message', (message: { id: number; rows?: Array<Record<string, unknown>>; error?: string; fatal?: string }) => {
      if (message.fatal !== undefined) {
        broken(message.fatal);
        return;
      }
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      // Idle, it never keeps the process alive; closing the database terminates it.
      if (this.pending.size === 0) worker.unref();
      if (message.error !== undefined) waiting.reject(new Error(message.error));
      else waiting.resolve((message.rows ?? []).map(withBuffers));
    });
    // Thrown errors cross threads without their class (a SqliteError keeps only its code).
    worker.on('error', (error: unknown) => broken(describeError(error)));
    worker.on('exit', (code) => {
      if (this.worker === worker) broken(`it exited with code ${code}`);
    });
    this.worker = worker;
    return worker;
  }

  private fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

function describeError(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { message, code } = error as { message?: unknown; code?: unknown };
  return String(message ?? code ?? 'unknown error');
}

/** Blobs come back from the worker as plain Uint8Arrays: view them as Buffers again (no copy). */
function withBuffers(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return row;
}
