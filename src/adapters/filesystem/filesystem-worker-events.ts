import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../../lib/spawn-module-worker';
import type { AdapterContext, StagedFiles, SyncEvent } from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { FullRunRequired, SourceError } from '../source-error';
import type { FilesystemCheckpoint } from './filesystem-checkpoint';
import type { FilesystemConfig } from './filesystem-config';
import { fromWireError, fromWireEvent, fromWireFields, toWireError, type FromWorker, type RunRequest, type ToWorker, type WireLog } from './filesystem-wire';

/** Chunks of events (256 at most each) the worker may send before the sync thread consumed them. */
const WINDOW = 4;
/** A worker left idle this long after a run ends is stopped; the next run within it starts warm. */
const IDLE_MS = 10_000;

/** Appended to a worker failure: the way around one. */
const HINT = ' (FILESYSTEM_WORKER_THREAD=false runs the adapter on the sync thread)';

let idle: { worker: Worker; timer: NodeJS.Timeout } | undefined;

/** The idle worker, if one is waiting, else a new one. */
function takeWorker(): Worker {
  if (idle) {
    const { worker, timer } = idle;
    idle = undefined;
    clearTimeout(timer);
    worker.ref();
    return worker;
  }
  const worker = spawnModuleWorker(__filename, 'filesystem-worker');
  worker.on('exit', () => {
    if (idle?.worker === worker) {
      clearTimeout(idle.timer);
      idle = undefined;
    }
  });
  return worker;
}

/** Keeps a worker whose run ended cleanly for the next run (one at most); it never keeps the process alive. */
function parkWorker(worker: Worker): void {
  if (idle) {
    void worker.terminate();
    return;
  }
  worker.unref();
  const timer = setTimeout(() => {
    if (idle?.worker !== worker) return;
    idle = undefined;
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle = { worker, timer };
}

type Item = { events: SyncEvent[] } | { log: WireLog };

/**
 * The filesystem adapter's events, produced on a worker thread: the walk, the reads and the
 * Markdown rendering run beside the sync engine instead of taking turns with it on one thread.
 * The events, logs and errors are the ones the adapter yields in-thread, in the same order;
 * binary files are still opened here, only when the engine asks. The worker runs at most a few
 * chunks ahead; the run stops it when cancelled, when the consumer stops early, or on an error.
 */
export async function* filesystemWorkerEvents(
  config: FilesystemConfig,
  request: { mode: 'full' } | { mode: 'changes'; since: FilesystemCheckpoint },
  ctx: AdapterContext,
): AsyncGenerator<SyncEvent> {
  throwIfAborted(ctx.signal);
  let worker: Worker;
  try {
    worker = takeWorker();
  } catch (error) {
    throw new SourceError(`the filesystem adapter's worker thread could not start: ${(error as Error).message}${HINT}`, { cause: error });
  }
  const queue: Item[] = [];
  /** The worker finished the run (with its last event or with an error): it can run another. */
  let ended = false;
  let failure: Error | undefined;
  let crashed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const onMessage = (message: FromWorker) => {
    if (message.type === 'staged') return answerStaged(worker, ctx.staged, message);
    if (message.type === 'events') queue.push({ events: message.events.map(fromWireEvent) });
    else if (message.type === 'log') queue.push({ log: message.log });
    else if (message.type === 'end') ended = true;
    else {
      ended = true;
      failure = fromWireError(message.error);
    }
    notify();
  };
  const onError = (error: Error) => {
    crashed = true;
    failure = new SourceError(`the filesystem adapter's worker thread failed: ${error.message}${HINT}`, { cause: error });
    notify();
  };
  const onExit = (code: number) => {
    crashed = true;
    failure ??= new SourceError(`the filesystem adapter's worker thread stopped (exit code ${code})${HINT}`);
    notify();
  };
  worker.on('message', onMessage);
  worker.on('error', onError);
  worker.on('exit', onExit);
  ctx.signal.addEventListener('abort', notify);
  try {
    const run: RunRequest = { type: 'run', config, ...request, now: ctx.now().toISOString(), window: WINDOW };
    worker.postMessage(run);
    for (;;) {
      throwIfAborted(ctx.signal);
      const item = queue.shift();
      if (item === undefined) {
        if (failure) throw failure;
        if (ended) break;
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if ('log' in item) {
        ctx.logger[item.log.level](fromWireFields(item.log.fields), item.log.message);
        continue;
      }
      for (const event of item.events) {
        throwIfAborted(ctx.signal);
        yield event;
      }
      worker.postMessage({ type: 'credit' } satisfies ToWorker);
    }
  } finally {
    ctx.signal.removeEventListener('abort', notify);
    worker.off('message', onMessage);
    worker.off('error', onError);
    worker.off('exit', onExit);
    // Stopped before the worker finished (cancelled, or the consumer stopped), it may still be walking.
    if (ended && !crashed) parkWorker(worker);
    else void worker.terminate();
  }
}

/** Answers the worker's call of the run's `StagedFiles` (which only the sync thread has). */
function answerStaged(worker: Worker, staged: StagedFiles | undefined, message: Extract<FromWorker, { type: 'staged' }>): void {
  const call = async (): Promise<unknown> => {
    if (!staged) throw new FullRunRequired('an incremental walk compares with the staged files, and none were given');
    if (message.method === 'list') return staged.list(...message.args);
    if (message.method === 'unlisted') return staged.unlisted(...message.args);
    return message.method === 'count' ? staged.count() : staged.unlistedCount();
  };
  // A worker stopped meanwhile (the run cancelled) drops the answer.
  call().then(
    (result) => worker.postMessage({ type: 'staged-answer', id: message.id, result } satisfies ToWorker),
    (error: unknown) => worker.postMessage({ type: 'staged-answer', id: message.id, error: toWireError(error) } satisfies ToWorker),
  );
}
