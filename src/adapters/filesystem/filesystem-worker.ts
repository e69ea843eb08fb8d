import { parentPort } from 'node:worker_threads';
import type { Logger } from '../../logging/create-logger';
import type { StagedFiles, SyncEvent } from '../adapter';
import { FilesystemAdapter } from './filesystem-adapter';
import {
  fromWireError,
  toWireError,
  toWireEvent,
  toWireFields,
  type FromWorker,
  type RunRequest,
  type StagedCall,
  type ToWorker,
  type WireEvent,
  type WireLog,
} from './filesystem-wire';

/**
 * The filesystem adapter's worker thread (started by `filesystem-worker-events.ts`): it runs one
 * walk at a time, in this thread, and sends its events to the sync thread in chunks. It never
 * runs more than `window` chunks ahead of what the sync thread has consumed.
 */

/** A chunk is sent at this many events, or at this many characters of inline HTML. */
const CHUNK_EVENTS = 256;
const CHUNK_CHARS = 1 << 20;
/** A slow walk still sends what it has after this long (checked as events come). */
const CHUNK_MS = 50;

/** The run's `StagedFiles`, asked for across the thread boundary: each call is a message, answered by the sync thread. */
class StagedFilesProxy implements StagedFiles {
  private calls = 0;
  private readonly waiting = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();

  constructor(private readonly post: (message: FromWorker) => void) {}

  answer(message: Extract<ToWorker, { type: 'staged-answer' }>): void {
    const call = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    if (message.error) call?.reject(fromWireError(message.error));
    else call?.resolve(message.result);
  }

  list(nativeIds: readonly string[]): Promise<Map<string, string | null>> {
    return this.call({ method: 'list', args: [nativeIds] });
  }
  count(): Promise<number> {
    return this.call({ method: 'count', args: [] });
  }
  unlistedCount(): Promise<number> {
    return this.call({ method: 'unlistedCount', args: [] });
  }
  unlisted(after: string | undefined, limit: number): Promise<string[]> {
    return this.call({ method: 'unlisted', args: [after, limit] });
  }

  private call<T>(call: StagedCall): Promise<T> {
    const id = (this.calls += 1);
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: (result) => resolve(result as T), reject });
      this.post({ type: 'staged', id, ...call });
    });
  }
}

const port = parentPort;
if (port) {
  // Never aborted: the sync thread stops a run by terminating the worker.
  const signal = new AbortController().signal;
  let credits = 0;
  let wake: (() => void) | undefined;
  const post = (message: FromWorker) => port.postMessage(message);

  const staged = new StagedFilesProxy(post);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'staged-answer') staged.answer(message);
    else if (message.type === 'credit') {
      credits += 1;
      wake?.();
    } else {
      credits = message.window;
      void run(message).then(
        () => post({ type: 'end' }),
        (error: unknown) => post({ type: 'error', error: toWireError(error) }),
      );
    }
  });

  const run = async (request: RunRequest): Promise<void> => {
    let chunk: WireEvent[] = [];
    let chars = 0;
    let firstAt = 0;
    const send = (): void => {
      if (chunk.length === 0) return;
      credits -= 1;
      post({ type: 'events', events: chunk });
      chunk = [];
      chars = 0;
    };
    /** Sends the chunk once the sync thread has room for it. */
    const flush = async (): Promise<void> => {
      while (chunk.length > 0 && credits <= 0) await new Promise<void>((resolve) => (wake = resolve));
      send();
    };
    const logger = forwardingLogger((log) => {
      // A line logged after events stays after them: the pending chunk goes first, room or not.
      send();
      post({ type: 'log', log });
    });
    const adapter = new FilesystemAdapter({ ...request.config, workerThread: false });
    const ctx = { logger, signal, now: () => new Date(request.now), ...(request.mode === 'changes' ? { staged } : {}) };
    const events: AsyncIterable<SyncEvent> = request.mode === 'full' ? adapter.full(ctx) : adapter.changes(ctx, request.since);
    for await (const event of events) {
      if (chunk.length === 0) firstAt = Date.now();
      chunk.push(toWireEvent(event));
      if (event.type === 'file' && 'html' in event.file.content) chars += event.file.content.html.length;
      if (chunk.length >= CHUNK_EVENTS || chars >= CHUNK_CHARS || Date.now() - firstAt >= CHUNK_MS) await flush();
    }
    await flush();
  };
}

/** A logger for the adapter that hands each call to `send` (the level filter is the sync thread's). */
function forwardingLogger(send: (log: WireLog) => void): Logger {
  const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
  const logger: Record<string, unknown> = { level: 'trace', child: () => logger };
  for (const level of levels) {
    logger[level] = (fieldsOrMessage: unknown, message?: string) => {
      if (typeof fieldsOrMessage === 'string') send({ level, fields: {}, message: fieldsOrMessage });
      else send({ level, fields: toWireFields(fieldsOrMessage), message: message ?? '' });
    };
  }
  return logger as unknown as Logger;
}
