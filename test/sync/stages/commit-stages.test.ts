import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { SyncEvent } from '../../../src/adapters/adapter';
import { SourceError, SourceUnavailableError } from '../../../src/adapters/source-error';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { CheckpointsRepository } from '../../../src/staging/repositories/checkpoints-repository';
import { SyncLock } from '../../../src/staging/repositories/sync-lock';
import { SyncRunsRepository, type SyncMode } from '../../../src/staging/repositories/sync-runs-repository';
import { emptyBatch, SyncStore } from '../../../src/staging/write-path/sync-store';
import { RunCancelled, RunTally, type RunContext } from '../../../src/sync/run-context';
import { applyBatch } from '../../../src/sync/stages/apply-batch';
import { decideBatch, takeFileOutcomes } from '../../../src/sync/stages/decide-batch';
import { recordCheckpoint } from '../../../src/sync/stages/record-checkpoint';
import { sweepUnseen } from '../../../src/sync/stages/sweep-unseen';
import { startRun } from '../../../src/sync/start-run';
import { DEFAULT_SYNC_OPTIONS, type SyncProgress } from '../../../src/sync/sync-options';
import { ScriptedSource } from '../../helpers/scripted-adapter';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../../helpers/test-databases';

const logger = pino({ level: 'silent' });
const budget = { maxFailures: 1000, maxFailureRatio: 1, minItems: 1 };
const html = (id: string, body = `<p>${id}</p>`): SyncEvent => ({
  type: 'file',
  file: {
    nativeId: id,
    name: id,
    externalUrl: `https://src.example/${id}`,
    mimeType: 'text/html',
    content: { kind: 'html', html: body },
    access: [{ type: 'EVERYONE' }],
  },
});

describe.each(databaseKinds)('the stages that write, on %s', (kind) => {
  let t: TestDatabase;
  let dir: string;
  let progress: SyncProgress[];
  const at = '2026-05-01T00:00:00.000Z';

  beforeEach(async () => {
    t = await createTestDatabase(kind);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stages-'));
    progress = [];
  });
  const openLocks: SyncLock[] = [];
  afterEach(async () => {
    // A run a test leaves open would go on renewing its lease against a closed database.
    for (const lock of openLocks.splice(0)) await lock.release().catch(() => undefined);
    await t.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A run opened the way `runSync` opens one, with the lock held. */
  async function openRun(mode: SyncMode, options: Partial<typeof DEFAULT_SYNC_OPTIONS> = {}): Promise<RunContext> {
    const adapter = new ScriptedSource('src');
    const store = new SyncStore(t.db);
    const runs = new SyncRunsRepository(t.db);
    const now = () => new Date(at);
    const lock = new SyncLock(t.db, 'src', 60_000, now);
    await lock.acquire();
    openLocks.push(lock);
    const { runId } = await startRun({ adapter, runs, store, logger }, mode, () => at);
    return {
      adapter,
      source: 'src',
      mode,
      runId,
      store,
      runs,
      lock,
      logger,
      now,
      started: Date.now(),
      accessAsOf: at,
      options: { ...DEFAULT_SYNC_OPTIONS, ...options, onProgress: (p) => progress.push(p) },
      checkpoints: new CheckpointsRepository(t.db),
      blobs: new FsBlobStore(dir),
      signal: new AbortController().signal,
    };
  }

  async function closeRun(ctx: RunContext): Promise<void> {
    await ctx.runs.finish(ctx.runId, 'succeeded', new RunTally(budget).counts, at);
    await ctx.lock.release();
  }

  it('decide, apply and checkpoint: a batch is staged whole, and the same batch again changes nothing', async () => {
    const ctx = await openRun('incremental');
    const events: SyncEvent[] = [html('a'), html('b'), { type: 'user', user: { nativeId: 'u', email: 'u@x.example', active: true } }];
    const tally = new RunTally(budget);
    const batch = await decideBatch(ctx, tally, events, at);
    expect(batch.files.map((f) => f.row.id)).toEqual(['src:a', 'src:b']);
    expect(batch.users.map((u) => u.id)).toEqual(['src:u']);
    expect(tally.counts).toMatchObject({ added: 2, unchanged: 0 });
    expect(tally.identities).toMatchObject({ added: 1, unchanged: 0 });
    await applyBatch(ctx, batch, at);
    await recordCheckpoint(ctx, tally, { position: 3 }, at);
    expect(await t.db('files').orderBy('id').pluck('id')).toEqual(['src:a', 'src:b']);
    expect(await ctx.checkpoints.load('src')).toEqual({ position: 3 });
    expect(progress.at(-1)).toMatchObject({ source: 'src', mode: 'incremental', counts: { added: 2 }, identities: { added: 1 } });

    const again = new RunTally(budget);
    const second = await decideBatch(ctx, again, events, at);
    expect(second.files).toEqual([]);
    expect(second.users).toEqual([]);
    expect(again.counts).toMatchObject({ added: 0, changed: 0, unchanged: 2 });
    expect(again.identities).toMatchObject({ added: 0, changed: 0, unchanged: 1 });
  });

  it("checkpoint: a full run keeps its checkpoint with its progress (to resume), not as the source's", async () => {
    const ctx = await openRun('full');
    await recordCheckpoint(ctx, new RunTally(budget), { position: 7 }, at);
    expect(await ctx.checkpoints.load('src')).toBeUndefined();
    const run = await t.db('sync_runs').where({ id: ctx.runId }).first();
    expect(JSON.parse(run.checkpoint as string)).toEqual({ position: 7 });
    // …which is where an interrupted full run goes on from.
    const resumed = await startRun({ adapter: ctx.adapter, runs: ctx.runs, store: ctx.store, logger }, 'full', () => at);
    expect(resumed).toEqual({ runId: ctx.runId, resumed: true, resume: { position: 7 } });
  });

  it('apply: a run that lost its lock writes nothing', async () => {
    const ctx = await openRun('full');
    const lost = { ...ctx, lock: { isLost: true } as SyncLock };
    const batch = await decideBatch(ctx, new RunTally(budget), [html('a')], at);
    await expect(applyBatch(lost, batch, at)).rejects.toThrow(/Lost the sync lock/);
    expect(await t.db('files').pluck('id')).toEqual([]);
  });

  it('decide: a failed file counts and is marked seen; a source error that asks to abort, or a cancelled run, stops the batch', async () => {
    const batch = emptyBatch();
    const tally = new RunTally(budget);
    const outcomes = async function* (error: Error) {
      yield { id: 'src:x', error };
    };
    await takeFileOutcomes(outcomes(new SourceUnavailableError('down for a moment')), batch, tally, new AbortController().signal);
    expect(tally.counts.failed).toBe(1);
    expect(batch.seen).toEqual([{ kind: 'file', id: 'src:x' }]);
    await expect(takeFileOutcomes(outcomes(new SourceError('credentials revoked')), batch, tally, new AbortController().signal)).rejects.toThrow(
      'credentials revoked',
    );
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(takeFileOutcomes(outcomes(new Error('aborted')), batch, tally, cancelled.signal)).rejects.toBeInstanceOf(RunCancelled);
    expect(tally.counts.failed).toBe(1);
  });

  it('sweep: what a full run did not see becomes a tombstone, unless that is more than the guard allows', async () => {
    const first = await openRun('full');
    const staged = await decideBatch(
      first,
      new RunTally(budget),
      ['a', 'b', 'c', 'd'].map((id) => html(id)),
      at,
    );
    await applyBatch(first, staged, at);
    await closeRun(first);

    const guarded = await openRun('full', { massDeleteMinFiles: 1, maxDeleteShare: 0.5 });
    await applyBatch(guarded, await decideBatch(guarded, new RunTally(budget), [html('a')], at), at);
    expect(await sweepUnseen(guarded, new RunTally(budget), undefined)).toMatch(/would delete 3 of 4 active files/);
    expect(await t.db('files').where({ status: 'active' }).pluck('id')).toHaveLength(4);
    await closeRun(guarded);

    const sweeping = await openRun('full', { massDeleteMinFiles: 1, maxDeleteShare: 0.5 });
    const tally = new RunTally(budget);
    await applyBatch(sweeping, await decideBatch(sweeping, tally, [html('a'), html('b'), html('c')], at), at);
    expect(await sweepUnseen(sweeping, tally, { position: 1 })).toBeUndefined();
    expect(await t.db('files').where({ status: 'deleted' }).pluck('id')).toEqual(['src:d']);
    expect(tally.counts.deleted).toBe(1);
    expect(await sweeping.checkpoints.load('src')).toEqual({ position: 1 });
  });
});
