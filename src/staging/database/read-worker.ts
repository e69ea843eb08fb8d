import { Worker } from 'node:worker_threads';
import { DatabaseTimeoutError } from '../../lib/database-unavailable';
import { withDeadline } from '../../lib/with-deadline';

interface Pending {
  resolve(rows: Array<Record<string, unknown>>): void;
  reject(error: Error): void;
}

/** A read statement for a worker: its text and bindings (the worker keeps it compiled by its text). */
export interface ReadRequest {
  sql: string;
  bindings: ReadonlyArray<unknown>;
}

/**
 * A worker thread that runs a database's heavy read statements off the event loop, one request
 * and one answer message each. `source` is the worker's code, plain CommonJS run with `eval` (so the
 * same text works from the compiled build, under tsx and under the test runner: a worker gets none of
 * their TypeScript loaders). It answers `{ id, rows }` or `{ id, error, code }`, or `{ fatal }` when it
 * cannot work at all. If the worker fails, callers get an error and it is not used again.
 */
export class ReadWorker {
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failed = false;

  constructor(
    private readonly label: string,
    private readonly source: string,
    private readonly workerData: Readonly<Record<string, unknown>>,
  ) {}

  /** False once the worker failed or was closed: run the query on the main connection instead. */
  get usable(): boolean {
    return !this.failed;
  }

  /**
   * Runs `request` in the worker. With `timeoutMs`, the caller waits no longer than that (then
   * `DatabaseTimeoutError`), and the worker skips the request if it reaches it later than that.
   */
  run(request: ReadRequest, timeoutMs = 0): Promise<Array<Record<string, unknown>>> {
    if (this.failed) return Promise.reject(new Error(`the ${this.label} is not available`));
    const worker = this.start();
    const id = this.nextId++;
    // Referenced while a query is out, so a caller awaiting it keeps the process alive.
    if (this.pending.size === 0) worker.ref();
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : undefined;
    const answer = new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...request, ...(deadline ? { deadline } : {}) });
    });
    return withDeadline(answer, timeoutMs, () => new DatabaseTimeoutError(`a read in the ${this.label}`, timeoutMs));
  }

  /** Stops the worker: it gets `{ close: true }` and a second to close its connection, then is terminated. */
  async close(): Promise<void> {
    this.failed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.fail(new Error(`the ${this.label} was closed`));
    if (!worker) return;
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      setTimeout(resolve, 1000).unref();
    });
    worker.postMessage({ close: true });
    await exited;
    await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.source, { eval: true, workerData: this.workerData });
    const broken = (why: string): void => {
      this.failed = true;
      this.worker = undefined;
      this.fail(new Error(`the ${this.label} failed: ${why}`));
    };
    worker.on('message', (message: { id: number; rows?: Array<Record<string, unknown>>; error?: string; code?: string; fatal?: string }) => {
      if (message.fatal !== undefined) {
        broken(message.fatal);
        return;
      }
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      // Idle, it never keeps the process alive; closing the database terminates it.
      if (this.pending.size === 0) worker.unref();
      if (message.error !== undefined) waiting.reject(Object.assign(new Error(message.error), message.code ? { code: message.code } : {}));
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

/** Bytes come back from a worker as plain Uint8Arrays: view them as Buffers again (no copy). */
function withBuffers(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array && !Buffer.isBuffer(value)) row[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  return row;
}
