import { isIncremental, reconcilesAccess, type AccessReconcilingAdapter, type Adapter, type AdapterContext, type SyncEvent } from '../adapters/adapter';
import { FullRunRequired } from '../adapters/source-error';
import { CheckpointsRepository } from '../staging/checkpoints-repository';
import { SyncLock } from '../staging/sync-lock';
import { SyncRunsRepository } from '../staging/sync-runs-repository';
import { SyncStore } from '../staging/sync-store';
import { finishRun, type RunEnding } from './finish-run';
import { planRun, type RunPlan } from './plan-run';
import { reconcileAccess, type ReconciliationStats } from './reconcile-access';
import { assertLock, RunCancelled, RunTally, stampOf, type RunContext } from './run-context';
import { applyBatch } from './stages/apply-batch';
import { decideBatch } from './stages/decide-batch';
import { readEvents, type EventBatch } from './stages/read-events';
import { recordCheckpoint } from './stages/record-checkpoint';
import { refuseDeletes, sweepUnseen } from './stages/sweep-unseen';
import { startRun } from './start-run';
import { DEFAULT_SYNC_OPTIONS, type SyncDeps, type SyncOptions, type SyncSummary } from './sync-options';

export { DEFAULT_SYNC_OPTIONS, type SyncDeps, type SyncOptions, type SyncProgress, type SyncSummary } from './sync-options';

/** What a sync works with before its run is opened (the run's id, mode and signal come after). */
type SyncEnvironment = Omit<RunContext, 'mode' | 'runId' | 'signal'> & { callerSignal: AbortSignal | undefined };

/**
 * The sync use case: reads an adapter's events and owns every write to staging. One run per
 * source at a time (a lease lock). The run is a line of named stages (`stages/`): read events in
 * batches, decide each batch (storing blobs before the rows that point at them), apply it in one
 * transaction, record the checkpoint that followed it; then, for a full run, sweep what it did not
 * see (behind the mass-deletion guard and the error budget). A killed full run resumes; an
 * incremental run whose checkpoint the source no longer accepts becomes a full one.
 */
export async function runSync(adapter: Adapter, deps: SyncDeps, partial: Partial<SyncOptions> = {}): Promise<SyncSummary> {
  const options = { ...DEFAULT_SYNC_OPTIONS, ...partial };
  const now = deps.now ?? (() => new Date());
  const source = adapter.name;
  const logger = deps.logger.child({ source });
  const repos = { store: new SyncStore(deps.db), runs: new SyncRunsRepository(deps.db), checkpoints: new CheckpointsRepository(deps.db) };
  const lock = new SyncLock(deps.db, source, options.lockLeaseMs, now);
  await lock.acquire();
  const env: SyncEnvironment = { adapter, source, options, ...repos, blobs: deps.blobs, lock, logger, now, started: Date.now(), callerSignal: deps.signal };
  try {
    const planned = await planRun(adapter, options, repos, logger, now());
    try {
      return await executeRun(env, planned);
    } catch (error) {
      if (!(error instanceof FullRunRequired)) throw error;
      logger.warn({ reason: error.reason }, 'a full run is required; running a full sync instead of an incremental one');
      await repos.checkpoints.clear(source);
      return await executeRun(env, { mode: 'full', fallback: error.reason });
    }
  } finally {
    await lock.release();
  }
}

/**
 * Opens a run, wires the caller's cancellation into it, runs its stages and closes it. An
 * incremental run's first event is read before the run is opened: a `FullRunRequired` there
 * goes to `runSync` with no run recorded, which then runs full from the start.
 */
async function executeRun(env: SyncEnvironment, plan: RunPlan): Promise<SyncSummary> {
  const { callerSignal, ...rest } = env;
  const controller = new AbortController();
  const onAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener('abort', onAbort, { once: true });
  try {
    const adapterCtx: AdapterContext = { logger: env.logger, signal: controller.signal, now: env.now };
    const changes = plan.mode === 'incremental' && isIncremental(env.adapter) ? await firstEventRead(env.adapter.changes(adapterCtx, plan.checkpoint)) : undefined;
    const opened = await startRun(env, plan.mode, () => stampOf(env));
    const ctx: RunContext = { ...rest, mode: plan.mode, runId: opened.runId, signal: controller.signal };
    const reconciler = plan.mode === 'incremental' && env.options.reconcile && reconcilesAccess(env.adapter) ? env.adapter : undefined;
    const tally = new RunTally(env.options.errorBudget, reconciler ? new Set() : undefined);
    const ending = { resumed: opened.resumed, ...(plan.fallback ? { fallback: plan.fallback } : {}) };
    try {
      const end = await runStages(ctx, tally, { plan, resume: opened.resume, reconciler, changes });
      return await finishRun(ctx, tally, { ...ending, ...end });
    } catch (error) {
      // An incremental run that finds out part way that a full run is required is recorded as failed; `runSync` runs the full one.
      if (error instanceof FullRunRequired && plan.mode === 'incremental') await finishRun(ctx, tally, { ...ending, status: 'failed', error: `a full run is required: ${error.reason}` });
      throw error;
    }
  } finally {
    callerSignal?.removeEventListener('abort', onAbort);
  }
}

/**
 * `events` with their first step already taken: a `FullRunRequired` before the first event is
 * thrown here; any other error is kept for the run to meet (and record) where it always did.
 */
async function firstEventRead(events: AsyncIterable<SyncEvent>): Promise<AsyncIterable<SyncEvent>> {
  const iterator = events[Symbol.asyncIterator]();
  let first: IteratorResult<SyncEvent>;
  try {
    first = await iterator.next();
  } catch (error) {
    if (error instanceof FullRunRequired) throw error;
    return failing(error);
  }
  return continued(first, iterator);
}

async function* failing(error: unknown): AsyncIterable<SyncEvent> {
  throw error;
}

async function* continued(first: IteratorResult<SyncEvent>, iterator: AsyncIterator<SyncEvent>): AsyncIterable<SyncEvent> {
  let done = first.done === true;
  try {
    for (let step = first; step.done !== true; step = await iterator.next()) yield step.value;
    done = true;
  } finally {
    // Stopped early (a break, a failure of the run): the adapter's generator closes too.
    if (!done) await iterator.return?.();
  }
}

/** The stages in order, and how the run ends; a full run required part way through an incremental run is thrown on. */
async function runStages(ctx: RunContext, tally: RunTally, how: { plan: RunPlan; resume: unknown; reconciler: AccessReconcilingAdapter | undefined; changes: AsyncIterable<SyncEvent> | undefined }): Promise<Omit<RunEnding, 'resumed' | 'fallback'>> {
  const adapterCtx: AdapterContext = { logger: ctx.logger, signal: ctx.signal, now: ctx.now };
  let lastCheckpoint: unknown;
  const consume = async (events: AsyncIterable<SyncEvent>): Promise<void> => {
    for await (const batch of readEvents(events, tally, ctx.options.batchSize, ctx.signal)) {
      await commitBatch(ctx, tally, batch);
      if (batch.checkpoint !== undefined) lastCheckpoint = batch.checkpoint;
    }
  };
  let reconciliation: ReconciliationStats | undefined;
  try {
    const { adapter } = ctx;
    await consume(ctx.mode === 'full' ? adapter.full(adapterCtx, how.resume) : (how.changes ?? adapter.full(adapterCtx)));
    if (how.reconciler && tally.touched) {
      const outcome = await reconcileAccess({
        adapter: how.reconciler,
        ctx: adapterCtx,
        store: ctx.store,
        source: ctx.source,
        batchSize: ctx.options.batchSize,
        counts: tally.counts,
        at: () => stampOf(ctx),
        touched: tally.touched,
        apply: (batch) => applyBatch(ctx, batch, stampOf(ctx)),
        consume,
        refuseDeletes: (deletes, active) => refuseDeletes(ctx.options, deletes, active),
      });
      reconciliation = outcome.stats;
      if (outcome.blocked) return { status: 'blocked', error: outcome.blocked, reconciliation };
    }
  } catch (error) {
    const withStats = reconciliation ? { reconciliation } : {};
    if (error instanceof RunCancelled || ctx.signal.aborted) return { status: 'cancelled', error: 'cancelled before the end: nothing was swept', ...withStats };
    if (error instanceof FullRunRequired && ctx.mode === 'incremental') throw error;
    return { status: 'failed', error: (error as Error).message, ...withStats };
  }
  const refused = ctx.mode === 'full' ? await sweepUnseen(ctx, tally, lastCheckpoint) : undefined;
  return refused ? { status: 'blocked', error: refused } : { status: 'succeeded', ...(reconciliation ? { reconciliation } : {}) };
}

/** One batch through decide (and store blobs), apply and checkpoint. */
async function commitBatch(ctx: RunContext, tally: RunTally, { events, checkpoint }: EventBatch): Promise<void> {
  // A run that lost its lock reads and stores nothing more.
  assertLock(ctx);
  const stamp = stampOf(ctx);
  const batch = await decideBatch(ctx, tally, events, stamp);
  // Only a full run's sweep reads seen marks; an incremental run has no use for them.
  if (ctx.mode !== 'full') batch.seen = [];
  await applyBatch(ctx, batch, stamp);
  await recordCheckpoint(ctx, tally, checkpoint, stamp);
}
