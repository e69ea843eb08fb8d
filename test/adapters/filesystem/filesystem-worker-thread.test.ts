import fs from 'node:fs';
import path from 'node:path';
import workerThreads from 'node:worker_threads';
import pino from 'pino';
import type { AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { createFilesystemAdapter, filesystemCheckpointSchema, type FilesystemCheckpoint } from '../../../src/adapters/filesystem';
import { AccessRuleError, DirectoryFileError } from '../../../src/adapters/filesystem/filesystem-mapping';
import { FullRunRequired, SourceError, SourceNotFoundError } from '../../../src/adapters/source-error';
import { generateMixedTree } from '@content-gateway/kit/src/fixtures/mixed-tree';
import { bytesOf, makeDir, makeTree, removeTrees, writeFiles } from './tree-fixture';
import { MemoryStagedFiles } from '../../helpers/memory-staged-files';

/**
 * With FILESYSTEM_WORKER_THREAD on, the walk, the reads and the Markdown rendering run on a worker
 * thread. What the engine gets must not change: the same events in the same order, the same log
 * lines between them, errors of the same classes, binary files opened (and re-checked) only when
 * asked, and cancellation as prompt as in the sync thread.
 */
afterAll(removeTrees);

type Trace = Array<Record<string, unknown>>;

/** Counts the worker threads started (and hands them out), starting them as usual. */
function spyOnWorkers() {
  const Real = workerThreads.Worker;
  return jest.spyOn(workerThreads, 'Worker').mockImplementation((...args: ConstructorParameters<typeof Real>) => new Real(...args));
}

/** A context whose logger writes into `trace`, between the events the caller records there. */
function tracing(trace: Trace, signal = new AbortController().signal): AdapterContext {
  const logger = pino(
    { level: 'debug', base: undefined, timestamp: false },
    { write: (line: string) => void trace.push({ log: JSON.parse(line) as unknown }) },
  );
  return { logger, signal, now: () => new Date('2026-05-01T00:00:00Z') };
}

/** An event as the engine would see it: binary content as its bytes, an error as its class, name, message and action. */
async function normalised(event: SyncEvent): Promise<Record<string, unknown>> {
  if (event.type === 'failure') {
    const error = event.error as Error & { action?: string };
    return { ...event, error: { class: error.constructor.name, name: error.name, message: error.message, action: error.action } };
  }
  if (event.type === 'file' && event.file.content.kind === 'binary') {
    return {
      ...event,
      file: { ...event.file, content: { kind: 'binary', version: event.file.content.version, bytes: (await bytesOf(event.file)).toString('base64') } },
    };
  }
  return event;
}

/** A run's trace and checkpoint, and what the engine would have staged of it (each file's version): what an incremental run compares with. */
interface Traced {
  trace: Trace;
  checkpoint: FilesystemCheckpoint;
  staged: Record<string, string | null>;
}

async function traceOf(workerThread: boolean, root: string, since?: Traced): Promise<Traced> {
  const trace: Trace = [];
  const adapter = createFilesystemAdapter({ root, sourceName: 'fs', workerThread });
  const ctx = tracing(trace);
  let checkpoint: unknown;
  const staged: Record<string, string | null> = { ...since?.staged };
  const events = since ? adapter.changes({ ...ctx, staged: new MemoryStagedFiles(since.staged) }, since.checkpoint) : adapter.full(ctx);
  for await (const event of events) {
    trace.push(await normalised(event));
    if (event.type === 'checkpoint') checkpoint = event.checkpoint;
    if (event.type === 'file') staged[event.file.nativeId] = 'version' in event.file.content ? (event.file.content.version ?? null) : null;
    if (event.type === 'delete') delete staged[event.nativeId];
  }
  return { trace, checkpoint: filesystemCheckpointSchema.parse(checkpoint), staged };
}

describe('the filesystem adapter on a worker thread', () => {
  it('yields what the sync thread yields, in the same order with the same log lines: full and incremental runs, failures included', async () => {
    const root = path.join(makeDir(), 'tree');
    fs.mkdirSync(root);
    const tree = generateMixedTree(root, { files: 600, skipped: 20 });
    // Failures too: a broken sidecar fails its folder's files; a file of a folder that cannot be listed is left out with a warning.
    writeFiles(root, { 'broken/_access.yaml': 'users: [nobody-known]\n', 'broken/a.html': '<title>A</title>', 'broken/b.md': '# B' });
    fs.mkdirSync(path.join(root, 'sealed'));
    writeFiles(root, { 'sealed/x.txt': 'x' });
    fs.chmodSync(path.join(root, 'sealed'), 0o000);
    try {
      const inThread = await traceOf(false, root);
      const onWorker = await traceOf(true, root);
      expect(onWorker.trace).toEqual(inThread.trace);
      expect(inThread.trace.filter((e) => e.type === 'file')).toHaveLength(tree.files.length + (process.getuid?.() === 0 ? 1 : 0));
      expect(inThread.trace.filter((e) => e.type === 'failure').map((e) => (e.error as { class: string }).class)).toEqual([
        'AccessRuleError',
        'AccessRuleError',
      ]);
      expect(inThread.trace.some((e) => e.log !== undefined)).toBe(true);

      // Edit, add, delete, and change a sidecar; then both threads' incremental runs from the same checkpoint.
      const [first, second] = tree.files.filter((f) => f.kind === 'html');
      writeFiles(
        root,
        { [first?.path ?? '']: '<title>Edited</title>', 'new/_access.yaml': 'public: true\n', 'new/n.md': '# New' },
        new Date('2025-06-01T00:00:00Z'),
      );
      fs.rmSync(path.join(root, second?.path ?? ''));
      fs.writeFileSync(path.join(root, '_access.yaml'), 'groups: [eng]\n');
      const changedInThread = await traceOf(false, root, inThread);
      const changedOnWorker = await traceOf(true, root, onWorker);
      expect(changedOnWorker.trace).toEqual(changedInThread.trace);
      expect(changedInThread.trace).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'delete', kind: 'file', nativeId: second?.path })]));
    } finally {
      fs.chmodSync(path.join(root, 'sealed'), 0o755);
    }
  });

  it('throws what the sync thread throws, as the same classes: a missing directory file, an incremental run that would delete most files', async () => {
    const noDirectory = makeTree({ 'a.txt': 'x' }, false);
    for (const workerThread of [false, true]) {
      const run = createFilesystemAdapter({ root: noDirectory, workerThread }).full(tracing([]));
      await expect(
        (async () => {
          for await (const _ of run);
        })(),
      ).rejects.toThrow(DirectoryFileError);
    }
    const root = makeTree({ '_access.yaml': 'public: true\n', ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, 'x'])) });
    const first = await traceOf(true, root);
    for (let i = 0; i < 10; i += 1) fs.rmSync(path.join(root, `f${i}.txt`));
    await expect(traceOf(true, root, first)).rejects.toThrow(FullRunRequired);
  });

  it('rebuilds failure errors with their class and action, so the engine skips items and the error budget counts them', async () => {
    const root = makeTree({ 'locked/_access.yaml': 'groups: [ghost]\n', 'locked/a.txt': 'x' });
    const trace: Trace = [];
    const events: SyncEvent[] = [];
    for await (const event of createFilesystemAdapter({ root, workerThread: true }).full(tracing(trace))) events.push(event);
    const failure = events.find((e) => e.type === 'failure');
    expect(failure?.type === 'failure' && failure.error).toBeInstanceOf(AccessRuleError);
    expect(failure?.type === 'failure' && (failure.error as SourceError).action).toBe('skip-item');
  });

  it('opens binary files only when asked, re-checking then that the path still leads to the file the walk found', async () => {
    const outside = makeTree({ 'secret.txt': 'outside the root' });
    const root = makeTree({ '_access.yaml': 'public: true\n', 'a.txt': 'before', 'b.txt': 'b' });
    const events: SyncEvent[] = [];
    for await (const event of createFilesystemAdapter({ root, workerThread: true }).full(tracing([]))) events.push(event);
    const [a, b] = events.flatMap((e) => (e.type === 'file' ? [e.file] : []));
    fs.writeFileSync(path.join(root, 'a.tmp'), 'after');
    fs.renameSync(path.join(root, 'a.tmp'), path.join(root, 'a.txt'));
    expect((await bytesOf(a ?? fail('no a.txt'))).toString()).toBe('after');
    fs.rmSync(path.join(root, 'b.txt'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'b.txt'));
    await expect(bytesOf(b ?? fail('no b.txt'))).rejects.toThrow(/now leads out of the root/);
    fs.rmSync(path.join(root, 'b.txt'));
    await expect(bytesOf(b ?? fail('no b.txt'))).rejects.toThrow(SourceNotFoundError);
  });

  it('keeps one warm worker for the next run, and starts a new one after a run was cancelled or stopped early', async () => {
    const spawned = spyOnWorkers();
    try {
      const root = makeTree({ '_access.yaml': 'public: true\n', ...Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`d${i % 7}/f${i}.txt`, 'x'])) });
      const run = async (stopAfter?: number, signal?: AbortSignal) => {
        let files = 0;
        for await (const event of createFilesystemAdapter({ root, workerThread: true }).full(tracing([], signal))) {
          if (event.type === 'file') files += 1;
          if (files === stopAfter) break;
        }
        return files;
      };
      expect(await run()).toBe(600);
      const afterFirst = spawned.mock.calls.length;
      expect(await run()).toBe(600);
      expect(spawned.mock.calls.length).toBe(afterFirst); // the same worker ran it

      expect(await run(10)).toBe(10); // stopped early: that worker is stopped too
      expect(await run()).toBe(600);
      expect(spawned.mock.calls.length).toBe(afterFirst + 1);

      const controller = new AbortController();
      const cancelled = (async () => {
        let files = 0;
        for await (const event of createFilesystemAdapter({ root, workerThread: true }).full(tracing([], controller.signal))) {
          if (event.type === 'file' && ++files === 5) controller.abort();
        }
      })();
      await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
      expect(await run()).toBe(600);
      expect(spawned.mock.calls.length).toBe(afterFirst + 2);
    } finally {
      spawned.mockRestore();
    }
  });

  it('fails the run with a SourceError when the worker thread dies mid-run', async () => {
    const spawned = spyOnWorkers();
    try {
      const root = makeTree({ '_access.yaml': 'public: true\n', ...Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`d${i % 9}/f${i}.txt`, 'x'])) });
      // A fresh worker: park none from earlier tests by stopping one run early first.
      for await (const _ of createFilesystemAdapter({ root, workerThread: true }).full(tracing([]))) break;
      const killed = (async () => {
        let files = 0;
        for await (const event of createFilesystemAdapter({ root, workerThread: true }).full(tracing([]))) {
          if (event.type === 'file' && ++files === 1) await spawned.mock.results.at(-1)?.value.terminate();
        }
        return files;
      })();
      await expect(killed).rejects.toThrow(SourceError);
      await expect(killed).rejects.toThrow(/worker thread stopped \(exit code \d+\) \(FILESYSTEM_WORKER_THREAD=false runs the adapter on the sync thread\)/);
    } finally {
      spawned.mockRestore();
    }
  });
});
