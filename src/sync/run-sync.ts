import {
  isIncremental,
  reconcilesAccess,
  type AccessReconcilingAdapter,
  type Adapter,
  type AdapterContext,
  type IncrementalAdapter,
  type SyncEvent,
} from '../adapters/adapter';
import { FullRunRequired } from '../adapters/source-error';
import { chunks } from '../lib/chunks';
import { DOCUMENT_CLASS_PREFIX } from '../policies/policy-compilation';
import { CheckpointsRepository } from '../staging/repositories/checkpoints-repository';
import { ListedFilesRepository } from '../staging/repositories/listed-files-repository';
import { PolicyGroupsRepository } from '../staging/repositories/policy-groups-repository';
import { SyncLock } from '../staging/repositories/sync-lock';
import { SyncRunsRepository } from '../staging/repositories/sync-runs-repository';
import { emptyBatch, SyncStore } from '../staging/write-path/sync-store';
import { finishRun, type RunEnding } from './finish-run';
import { planRun, type RunPlan } from './plan-run';
import type { ReconciliationStats } from './reconcile-access';
import { assertLock, RunCancelled, RunTally, stampOf, type RunContext } from './run-context';
import { applyBatch } from './stages/apply-batch';
import { reconciliationOf } from './stages/reconciliation-of-run';
import { decideBatch } from './stages/decide-batch';
import { PolicyStage, POLICY_GROUP_PREFIXES } from './stages/policy-stage';
import { readEvents, type EventBatch } from './stages/read-events';
import { recordCheckpoint } from './stages/record-checkpoint';
import { refuseDeletes, sweepUnseen } from './stages/sweep-unseen';
import { startRun } from './start-run';
import { DEFAULT_SYNC_OPTIONS, type SyncDeps, type SyncOptions, type SyncSummary } from './sync-options';

export { DEFAULT_SYNC_OPTIONS, type SyncDeps, type SyncOptions, type SyncProgress, type SyncSummary } from './sync-options';

/**
 * What a sync works with before its run is opened (the run's id, mode and signal come after), and
 * the staged policy groups a source with an access policy reads back.
 */
type SyncEnvironment = Omit<RunContext, 'mode' | 'runId' | 'signal'> & {
  callerSignal: AbortSignal | undefined;
  policyGroups: PolicyGroupsRepository;
  /** What an incremental run's `changes()` compares its listing with (`AdapterContext.staged`). */
  listed: ListedFilesRepository;
};

/**
 * The sync use case: reads an adapter's events and owns every write to staging. One run per
 * source at a time (a lease lock). The run is a line of named stages (`stages/`): read events in
 * batches (through the policy stage when the source has an access policy), decide each batch
 * (storing blobs before the rows that point at them), apply it in one transaction, record the
 * checkpoint that followed it; then, for a full run, sweep what it did not see (behind the
 * mass-deletion guard and the error budget), or, for an incremental one, reconcile access. A
 * killed full run resumes; an incremental run whose checkpoint the source no longer accepts (or
 * whose policy changed) becomes a full one.
 */
export async function runSync(adapter: Adapter, deps: SyncDeps, partial: Partial<SyncOptions> = {}): Promise<SyncSummary> {
  const options = { ...DEFAULT_SYNC_OPTIONS, ...partial };
  const now = deps.now ?? (() => new Date());
  const source = adapter.name;
  const logger = deps.logger.child({ source });
  const repos = { store: new SyncStore(deps.db), runs: new SyncRunsRepository(deps.db), checkpoints: new CheckpointsRepository(deps.db) };
  const lock = new SyncLock(deps.db, source, options.lockLeaseMs, now);
  const accessAsOf = now().toISOString();
  await lock.acquire();
  const policyGroups = new PolicyGroupsRepository(deps.db);
  const env: SyncEnvironment = {
    adapter,
    source,
    options,
    ...repos,
    policyGroups,
    listed: new ListedFilesRepository(deps.db, source),
    blobs: deps.blobs,
    lock,
    logger,
    now,
    started: Date.now(),
    accessAsOf,
    callerSignal: deps.signal,
  };
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

/** How the stages run: the run's events, the policy stage, and the adapter to reconcile access with. */
interface StagePlan {
  plan: RunPlan;
  resume: unknown;
  /** An incremental run's changes (see openChanges); a full run reads the adapter's `full`. */
  changes: AsyncIterable<SyncEvent> | undefined;
  /** The run's policy stage, when the source has an access policy. */
  policy: PolicyStage | undefined;
  policyGroups: PolicyGroupsRepository;
  reconciler: AccessReconcilingAdapter | undefined;
}

/**
 * Opens a run, wires the caller's cancellation into it, runs its stages and closes it. An
 * incremental run's first event is read before the run is opened: a `FullRunRequired` there
 * goes to `runSync` with no run recorded, which then runs full from the start.
 */
async function executeRun(env: SyncEnvironment, plan: RunPlan): Promise<SyncSummary> {
  const { callerSignal, policyGroups, listed, ...rest } = env;
  const controller = new AbortController();
  const onAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener('abort', onAbort, { once: true });
  const incremental = plan.mode === 'incremental' && isIncremental(env.adapter);
  try {
    // The marks of an earlier run that stopped before clearing its own (the lock is held).
    if (incremental) await listed.clear();
    const adapterCtx: AdapterContext = { logger: env.logger, signal: controller.signal, now: env.now, ...(incremental ? { staged: listed } : {}) };
    const { policy } = env.options;
    const { changes, stage } =
      incremental && isIncremental(env.adapter)
        ? await openChanges(env.adapter, adapterCtx, plan.checkpoint, policy && { policy, groups: policyGroups })
        : { changes: undefined, stage: policy && PolicyStage.fresh(policy, env.source) };
    const opened = await startRun(env, plan.mode, () => stampOf(env));
    const ctx: RunContext = { ...rest, mode: plan.mode, runId: opened.runId, signal: controller.signal };
    const reconciler = plan.mode === 'incremental' && env.options.reconcile && reconcilesAccess(env.adapter) ? env.adapter : undefined;
    const tally = new RunTally(env.options.errorBudget, reconciler ? new Set() : undefined);
    const ending = { resumed: opened.resumed, ...(plan.fallback ? { fallback: plan.fallback } : {}) };
    try {
      const end = await runStages(ctx, tally, { plan, resume: opened.resume, changes, policy: stage, policyGroups, reconciler });
      return await finishRun(ctx, tally, { ...ending, ...end });
    } catch (error) {
      // An incremental run that finds out part way that a full run is required is recorded as failed; `runSync` runs the full one.
      if (error instanceof FullRunRequired && plan.mode === 'incremental')
        await finishRun(ctx, tally, { ...ending, status: 'failed', error: `a full run is required: ${error.reason}` });
      throw error;
    }
  } finally {
    callerSignal?.removeEventListener('abort', onAbort);
    // Cleared again by the next incremental run if this fails (the database gone, say).
    if (incremental) await listed.clear().catch(() => undefined);
  }
}

/**
 * An incremental run's changes, their first step taken (firstEventRead). With an access policy they
 * go through the policy stage, restored from the policy groups earlier runs staged: a policy other
 * than theirs throws `FullRunRequired` before the adapter is read; a failure to read the groups is
 * kept for the run to meet, like the adapter's own.
 */
async function openChanges(
  adapter: IncrementalAdapter,
  ctx: AdapterContext,
  checkpoint: unknown,
  withPolicy: { policy: NonNullable<SyncOptions['policy']>; groups: PolicyGroupsRepository } | undefined,
): Promise<{ changes: AsyncIterable<SyncEvent>; stage?: PolicyStage }> {
  if (!withPolicy) return { changes: await firstEventRead(adapter.changes(ctx, checkpoint)) };
  let stage: PolicyStage;
  try {
    stage = PolicyStage.restore(withPolicy.policy, adapter.name, await withPolicy.groups.load(adapter.name, POLICY_GROUP_PREFIXES));
  } catch (error) {
    if (error instanceof FullRunRequired) throw error;
    return { changes: failing(error) };
  }
  return { changes: await firstEventRead(stage.apply(adapter.changes(ctx, checkpoint))), stage };
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

// eslint-disable-next-line require-yield -- an event stream that fails when first read, as the adapter did
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

/** Commits events: read in batches, each decided, applied and checkpointed (the pipeline every event goes through). */
type Consume = (events: AsyncIterable<SyncEvent>) => Promise<void>;

/** The stages in order, and how the run ends; a full run required part way through an incremental run is thrown on. */
async function runStages(ctx: RunContext, tally: RunTally, how: StagePlan): Promise<Omit<RunEnding, 'resumed' | 'fallback'>> {
  const adapterCtx: AdapterContext = { logger: ctx.logger, signal: ctx.signal, now: ctx.now };
  let lastCheckpoint: unknown;
  const consume: Consume = async (events) => {
    for await (const batch of readEvents(events, tally, ctx.options.batchSize, ctx.signal)) {
      await commitBatch(ctx, tally, batch);
      if (batch.checkpoint !== undefined) lastCheckpoint = batch.checkpoint;
    }
  };
  const { policy } = how;
  let reconciliation: ReconciliationStats | undefined;
  try {
    await consume(how.changes ?? fullEvents(ctx, adapterCtx, how.resume, policy));
    for (const warning of policy?.absentAttributes() ?? []) ctx.logger.warn({ source: ctx.source }, `${ctx.source}: ${warning}`);
    if (how.reconciler && tally.touched) {
      const outcome = await reconcile(ctx, tally, { adapter: how.reconciler, adapterCtx, policy, grants: how.policyGroups, touched: tally.touched }, consume);
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

/**
 * A full run's events, through the policy stage when the source has one: that run starts over
 * rather than resuming, since the users yielded before the interruption are needed.
 */
function fullEvents(ctx: RunContext, adapterCtx: AdapterContext, resume: unknown, policy: PolicyStage | undefined): AsyncIterable<SyncEvent> {
  if (!policy) return ctx.mode === 'full' ? ctx.adapter.full(adapterCtx, resume) : ctx.adapter.full(adapterCtx);
  return policy.apply(ctx.adapter.full(adapterCtx));
}

/** What reconciliation works with: the adapter's listing and `settle`, the run's policy stage and where the grants it keeps are staged. */
interface ReconcileRun {
  adapter: AccessReconcilingAdapter;
  adapterCtx: AdapterContext;
  policy: PolicyStage | undefined;
  grants: PolicyGroupsRepository;
  /** Files this run's changes wrote, deleted or failed. */
  touched: ReadonlySet<string>;
}

/**
 * Access reconciliation, after an incremental run's changes are committed. The reconciler
 * (reconcile-access.ts) decides; the engine feeds it the adapter's listing and `settle`'s answers
 * (through the policy stage, with the grants staged just then, when the source has a policy),
 * commits the answers it passes on like any events, counts what its access rewrites changed, and
 * tombstones the files it finds gone, unless the mass-deletion guard refuses.
 */
async function reconcile(ctx: RunContext, tally: RunTally, how: ReconcileRun, consume: Consume): Promise<{ stats: ReconciliationStats; blocked?: string }> {
  const { adapter, adapterCtx, policy } = how;
  const reconciliation = reconciliationOf(ctx, tally, how.touched);
  const grants = () => how.grants.fileGroups(ctx.source, DOCUMENT_CLASS_PREFIX);
  /** Files the engine wrote, access rewrites aside: what a settle round refreshed. */
  const written = () => tally.counts.added + tally.counts.changed - reconciliation.findings.accessRewritten;
  const listing = adapter.liveFiles(adapterCtx);
  let request = await reconciliation.compareListing(policy ? policy.listing(listing, await grants()) : listing);
  let refreshed = 0;
  for (; request; request = reconciliation.nextRequest()) {
    const answers = adapter.settle(adapterCtx, request);
    const before = written();
    await consume(reconciliation.answers(policy ? policy.settled(answers, await grants()) : answers));
    refreshed += written() - before;
  }
  const { gone, active } = reconciliation.verdict();
  const blocked = gone.length > 0 ? refuseDeletes(ctx.options, gone.length, active) : undefined;
  let deleted = 0;
  for (const part of blocked ? [] : chunks(gone, ctx.options.batchSize)) {
    await applyBatch(ctx, { ...emptyBatch(), tombstones: part }, stampOf(ctx));
    deleted += part.length;
    tally.counts.deleted += part.length;
  }
  const { findings } = reconciliation;
  const stats: ReconciliationStats = { ...findings, refreshed, deleted, unannounced: findings.accessRewritten + refreshed + deleted };
  return blocked ? { stats, blocked } : { stats };
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
