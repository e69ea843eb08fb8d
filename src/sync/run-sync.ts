import { isIncremental, reconcilesAccess, type Adapter, type AdapterContext, type SyncEvent } from '../adapters/adapter';
import { CheckpointExpiredError, isSourceError } from '../adapters/source-error';
import type { BlobStore } from '../blobs/blob-store';
import type { Logger } from '../logging/create-logger';
import { CheckpointsRepository } from '../staging/checkpoints-repository';
import type { Db } from '../staging/create-db';
import { SyncLock } from '../staging/sync-lock';
import { SyncRunsRepository, type SyncCounts, type SyncMode, type SyncRunStatus } from '../staging/sync-runs-repository';
import { emptyBatch, SyncStore, type SyncBatch } from '../staging/sync-store';
import { DEFAULT_ERROR_BUDGET, ErrorBudget, SyncAbortedError, type ErrorBudgetLimits } from './error-budget';
import { ConcurrencyPool } from '../lib/concurrency-pool';
import { decideFile, decideGroup, decideUser, globalId } from './record-rows';
import { eventFileId, reconcileAccess, type ReconciliationStats } from './reconcile-access';

export interface SyncOptions {
  /** `auto`: incremental when the adapter can and a valid checkpoint exists, else full. */
  mode: 'full' | 'incremental' | 'auto';
  /** Lets a full run tombstone more than `maxDeleteShare` of the source's active files. */
  allowMassDelete: boolean;
  maxDeleteShare: number;
  /** The guard applies only to sources with at least this many active files. */
  massDeleteMinFiles: number;
  errorBudget: ErrorBudgetLimits;
  /** Events per transaction. */
  batchSize: number;
  /** How long tombstones are served before they are purged. */
  tombstoneRetentionMs: number;
  lockLeaseMs: number;
  /**
   * Access reconciliation after incremental runs of adapters that offer it (`liveFiles` and
   * `settle`): a lost change event then delays a change of content, never one of access or a
   * deletion. On by default; off only to measure what it costs or catches.
   */
  reconcile: boolean;
  /**
   * With `mode: 'auto'`, run full (re-read all content, sweep) when the source's latest full run
   * started at least this long ago: content that lost events left stale converges within it.
   */
  fullEveryMs?: number;
  onProgress?: (progress: SyncProgress) => void;
}

export const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  mode: 'auto',
  allowMassDelete: false,
  maxDeleteShare: 0.5,
  massDeleteMinFiles: 10,
  errorBudget: DEFAULT_ERROR_BUDGET,
  batchSize: 500,
  tombstoneRetentionMs: 30 * 24 * 3600 * 1000,
  lockLeaseMs: 60_000,
  reconcile: true,
};

export interface SyncDeps {
  db: Db;
  blobs: BlobStore;
  logger: Logger;
  now?: () => Date;
  signal?: AbortSignal;
}

export interface SyncProgress {
  source: string;
  mode: SyncMode;
  processed: number;
  counts: SyncCounts;
  elapsedMs: number;
}

export interface SyncSummary {
  source: string;
  runId: number;
  mode: SyncMode;
  status: Exclude<SyncRunStatus, 'running'>;
  counts: SyncCounts;
  durationMs: number;
  /** A full run that continued an interrupted one. */
  resumed: boolean;
  /** Why an incremental run became a full one (or why a full one was due). */
  fellBackToFull?: string;
  /** What access reconciliation did (incremental runs of adapters that offer it). */
  reconciliation?: ReconciliationStats;
  error?: string;
  failures: string[];
}

/**
 * Binary files whose content is read and stored at once within a batch: downloads from a source
 * (and large blobs, which stream through libuv's thread pool) overlap instead of waiting in turn.
 * Small blobs are held in memory while written: at most this many times `SMALL_BLOB_BYTES`.
 */
const BLOB_WRITES = 32;

const zeroCounts = (): SyncCounts => ({ added: 0, changed: 0, unchanged: 0, deleted: 0, failed: 0, skipped: 0 });

class RunCancelled extends Error {}

/**
 * Chooses the mode and the starting checkpoint, falling back to a full run (logged) when the
 * checkpoint is missing or invalid, or when `fullEveryMs` says a full run is due.
 */
async function plan(adapter: Adapter, options: SyncOptions, repos: { checkpoints: CheckpointsRepository; runs: SyncRunsRepository }, logger: Logger, now: Date): Promise<{ mode: SyncMode; checkpoint?: unknown; fallback?: string }> {
  const { checkpoints } = repos;
  if (options.mode === 'full' || !isIncremental(adapter)) {
    if (options.mode === 'incremental' && !isIncremental(adapter)) return { mode: 'full', fallback: `${adapter.name} has no incremental sync` };
    return { mode: 'full' };
  }
  const stored = await checkpoints.load(adapter.name);
  if (stored === undefined) return { mode: 'full', fallback: 'no checkpoint yet' };
  const due = options.mode === 'auto' ? await fullRunDue(repos.runs, adapter.name, options.fullEveryMs, now) : undefined;
  if (due) return { mode: 'full', fallback: due };
  const parsed = adapter.checkpointSchema.safeParse(stored);
  if (!parsed.success) {
    logger.warn({ source: adapter.name }, 'stored checkpoint is invalid; running a full sync instead');
    return { mode: 'full', fallback: 'the stored checkpoint is invalid' };
  }
  return { mode: 'incremental', checkpoint: parsed.data };
}

/** Why a full run is due (the latest one started `fullEveryMs` or more ago), or undefined. */
async function fullRunDue(runs: SyncRunsRepository, source: string, fullEveryMs: number | undefined, now: Date): Promise<string | undefined> {
  if (fullEveryMs === undefined) return undefined;
  const last = await runs.lastFullRunStart(source);
  const every = formatHours(fullEveryMs);
  if (last === undefined) return `a full run is due (none recorded; one every ${every})`;
  const age = now.getTime() - Date.parse(last);
  return age >= fullEveryMs ? `a full run is due (the last one started ${formatHours(age)} ago; one every ${every})` : undefined;
}

function formatHours(ms: number): string {
  return ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(ms % 3_600_000 === 0 ? 0 : 1)} h` : `${Math.round(ms / 60_000)} min`;
}

/**
 * The sync use case: reads an adapter's events and owns every write to staging. One run per
 * source at a time (a lease lock); batched transactions; blobs before rows; checkpoints stored
 * once the events before them are committed; full runs mark what they see and sweep the rest
 * (behind the mass-deletion guard and the error budget); a killed full run resumes.
 */
export async function runSync(adapter: Adapter, deps: SyncDeps, partial: Partial<SyncOptions> = {}): Promise<SyncSummary> {
  const options = { ...DEFAULT_SYNC_OPTIONS, ...partial };
  const now = deps.now ?? (() => new Date());
  const source = adapter.name;
  const logger = deps.logger.child({ source });
  const store = new SyncStore(deps.db);
  const runs = new SyncRunsRepository(deps.db);
  const checkpoints = new CheckpointsRepository(deps.db);
  const lock = new SyncLock(deps.db, source, options.lockLeaseMs, now);
  await lock.acquire();
  const started = Date.now();
  try {
    const planned = await plan(adapter, options, { checkpoints, runs }, logger, now());
    try {
      return await execute(planned.mode, planned.checkpoint, planned.fallback);
    } catch (error) {
      if (!(error instanceof CheckpointExpiredError)) throw error;
      logger.warn({ err: error }, 'the source no longer accepts the checkpoint; running a full sync instead');
      await checkpoints.clear(source);
      return await execute('full', undefined, `checkpoint expired: ${error.message}`);
    }
  } finally {
    await lock.release();
  }

  async function execute(mode: SyncMode, checkpoint: unknown, fallback: string | undefined): Promise<SyncSummary> {
    const at = () => now().toISOString();
    let runId: number;
    let resume: unknown;
    let resumed = false;
    const interrupted = mode === 'full' ? await runs.interruptedFullRun(source) : undefined;
    if (interrupted) {
      runId = interrupted.id;
      resumed = true;
      const raw = interrupted.checkpoint ? (JSON.parse(interrupted.checkpoint) as unknown) : undefined;
      resume = raw !== undefined && isIncremental(adapter) && !adapter.checkpointSchema.safeParse(raw).success ? undefined : raw;
      logger.info({ runId, resume: resume !== undefined }, 'resuming an interrupted full sync');
    } else {
      runId = await runs.start(source, mode, at());
    }
    await runs.abandon(source, runId, at());
    // Seen marks matter only to a full run that may still resume; those of runs that ended (or
    // were abandoned above) would otherwise stay in sync_seen for good. We hold the lock here.
    await store.clearFinishedSeen(source);

    const counts = zeroCounts();
    const failures: string[] = [];
    const budget = new ErrorBudget(options.errorBudget);
    const controller = new AbortController();
    const onAbort = () => controller.abort(deps.signal?.reason);
    if (deps.signal?.aborted) controller.abort(deps.signal.reason);
    else deps.signal?.addEventListener('abort', onAbort, { once: true });
    const ctx: AdapterContext = { logger, signal: controller.signal, now };
    let pending: SyncEvent[] = [];
    let processed = 0;
    let lastCheckpoint: unknown;
    let finalCheckpoint: unknown;
    const reconciler = mode === 'incremental' && options.reconcile && reconcilesAccess(adapter) ? adapter : undefined;
    /** Files the run's changes settled (written, deleted, failed): reconciliation leaves them be. */
    const touched = reconciler ? new Set<string>() : undefined;
    let reconciliation: ReconciliationStats | undefined;

    const assertLock = (): void => {
      if (lock.isLost) throw new SyncAbortedError(`Lost the sync lock of '${source}' (another run took over); stopping.`);
    };

    const flush = async (): Promise<void> => {
      assertLock();
      const events = pending;
      pending = [];
      const stamp = at();
      const batch = await decideBatch(events, stamp);
      // Only a full run's sweep reads seen marks; an incremental run has no use for them.
      if (mode !== 'full') batch.seen = [];
      await releaseBlobs(await store.apply(batch, runId, stamp));
      if (lastCheckpoint !== undefined) {
        if (mode === 'incremental') await checkpoints.save(source, lastCheckpoint, stamp);
        finalCheckpoint = lastCheckpoint;
      }
      await runs.saveProgress(runId, counts, mode === 'full' ? lastCheckpoint : undefined, stamp);
      lastCheckpoint = undefined;
      options.onProgress?.({ source, mode, processed, counts: { ...counts }, elapsedMs: Date.now() - started });
    };

    const decideBatch = async (events: SyncEvent[], stamp: string): Promise<SyncBatch> => {
      const batch = emptyBatch();
      // The last event for an id wins within a batch.
      const files = new Map<string, Extract<SyncEvent, { type: 'file' }>['file']>();
      const users = new Map<string, Extract<SyncEvent, { type: 'user' }>['user']>();
      const groups = new Map<string, Extract<SyncEvent, { type: 'group' }>['group']>();
      for (const e of events) {
        if (touched) {
          const fileId = eventFileId(source, e);
          if (fileId) touched.add(fileId);
        }
        if (e.type === 'file') files.set(globalId(source, e.file.nativeId), e.file);
        else if (e.type === 'user') users.set(globalId(source, e.user.nativeId), e.user);
        else if (e.type === 'group') groups.set(globalId(source, e.group.nativeId), e.group);
        else if (e.type === 'delete') {
          const id = globalId(source, e.nativeId);
          files.delete(id);
          if (e.kind === 'file') batch.tombstones.push(id);
          else if (e.kind === 'user') batch.inactivate.push(id);
          else batch.deleteGroups.push(id);
          counts.deleted++;
        } else if (e.type === 'failure' && e.nativeId && e.kind) {
          // A failed item is kept as it was: marking it seen keeps the sweep off it.
          batch.seen.push({ kind: e.kind, id: globalId(source, e.nativeId) });
        }
      }
      const fileStates = await store.fileStates([...files.keys()]);
      // Every decision starts at once: inline content is decided on the spot, while binary
      // content streams into the blob store, `BLOB_WRITES` files at a time. Outcomes are taken in
      // order, so counts, failures and the error budget behave as if sequential.
      const blobWrites = new ConcurrencyPool(BLOB_WRITES);
      let abandoned = false;
      const decisions = [...files].map(async ([id, record]) => {
        try {
          const decide = async () => {
            // The batch stopped (cancelled, or over the error budget): read and store nothing more.
            if (abandoned) throw new RunCancelled();
            return decideFile(source, record, fileStates.get(id), deps.blobs, stamp);
          };
          return { id, decision: await (record.content.kind === 'binary' ? blobWrites.run(decide) : decide()), error: undefined };
        } catch (error) {
          return { id, decision: undefined, error: error as Error };
        }
      });
      try {
        for await (const outcome of decisions) {
          const { id, error, decision } = outcome;
          batch.seen.push({ kind: 'file', id });
          if (error || !decision) {
            if (controller.signal.aborted) throw new RunCancelled();
            if (isSourceError(error) && error.action === 'abort') throw error;
            counts.failed++;
            failures.push(`${id}: ${error?.message ?? 'no decision'}`);
            budget.fail(error ?? new Error('no decision'));
            continue;
          }
          if (decision.kind === 'unchanged') counts.unchanged++;
          else if (decision.kind === 'permissions') {
            counts.changed++;
            batch.permissions.push({ fileId: id, permissions: decision.permissions, hash: decision.hash, at: decision.at });
          } else {
            counts[decision.kind]++;
            batch.files.push({ row: decision.row, permissions: decision.permissions, stored: decision.kind === 'changed' });
          }
        }
      } finally {
        abandoned = true;
      }
      /** Users and groups: write when their fingerprint changed, count either way. */
      const decideIdentities = <R, S, W>(kind: 'user' | 'group', records: Map<string, R>, states: Map<string, S>, decide: (record: R, state: S | undefined) => W | undefined, out: W[]) => {
        for (const [id, record] of records) {
          batch.seen.push({ kind, id });
          const write = decide(record, states.get(id));
          if (!write) counts.unchanged++;
          else {
            counts[states.has(id) ? 'changed' : 'added']++;
            out.push(write);
          }
        }
      };
      decideIdentities('user', users, await store.userStates([...users.keys()]), (r, st) => decideUser(source, r, st, stamp), batch.users);
      decideIdentities('group', groups, await store.groupStates([...groups.keys()]), (r, st) => decideGroup(source, r, st, stamp), batch.groups);
      return batch;
    };

    /**
     * Deletes blobs no row points at any more, unless another source's sync is running: blobs are
     * shared by content, and that sync may be about to point a row at one. Those are then left in
     * the store, unreferenced, for `gc-blobs` (collect-blob-garbage.ts) to delete.
     */
    const releaseBlobs = async (keys: string[]): Promise<void> => {
      if (keys.length === 0 || (await store.otherSyncRunning(source))) return;
      await Promise.all(keys.map((key) => deps.blobs.delete(key)));
    };

    const finish = async (status: Exclude<SyncRunStatus, 'running'>, error?: string): Promise<SyncSummary> => {
      await runs.finish(runId, status, counts, at(), error ?? (failures.length ? failures.slice(0, 100).join('\n') : undefined), reconciliation?.unannounced);
      deps.signal?.removeEventListener('abort', onAbort);
      const summary: SyncSummary = {
        source,
        runId,
        mode,
        status,
        counts,
        durationMs: Date.now() - started,
        resumed,
        failures,
        ...(fallback ? { fellBackToFull: fallback } : {}),
        ...(reconciliation ? { reconciliation } : {}),
        ...(error ? { error } : {}),
      };
      logger.info({ runId, mode, status, counts, ...(reconciliation ? { reconciliation } : {}), durationMs: summary.durationMs }, 'sync finished');
      return summary;
    };

    /** Why deleting `deletes` of `active` files is refused (the mass-deletion guard), or undefined. */
    const refuseDeletes = (deletes: number, active: number): string | undefined => {
      if (options.allowMassDelete || active < options.massDeleteMinFiles || deletes / active <= options.maxDeleteShare) return undefined;
      return `The run would delete ${deletes} of ${active} active files (over ${Math.round(options.maxDeleteShare * 100)} %); nothing was deleted. If the source really lost them, run again with --allow-mass-delete.`;
    };

    /** Runs events through decisions and batches (error budget, checkpoints), then commits what is pending. */
    const consume = async (events: AsyncIterable<SyncEvent>): Promise<void> => {
      for await (const event of events) {
        if (controller.signal.aborted) throw new RunCancelled();
        if (event.type === 'checkpoint') {
          lastCheckpoint = event.checkpoint;
          await flush();
          continue;
        }
        if (event.type === 'failure') {
          counts.failed++;
          failures.push(`${event.nativeId ?? '?'}: ${event.error.message}`);
          budget.fail(event.error);
        } else if (event.type !== 'delete') {
          budget.item();
        }
        processed++;
        pending.push(event);
        if (pending.length >= options.batchSize) await flush();
      }
      await flush();
    };

    try {
      await consume(mode === 'full' ? adapter.full(ctx, resume) : isIncremental(adapter) ? adapter.changes(ctx, checkpoint) : adapter.full(ctx));
      if (reconciler && touched) {
        const outcome = await reconcileAccess({
          adapter: reconciler,
          ctx,
          store,
          source,
          batchSize: options.batchSize,
          counts,
          at,
          touched,
          apply: async (batch) => {
            assertLock();
            await releaseBlobs(await store.apply(batch, runId, at()));
          },
          consume,
          refuseDeletes,
        });
        reconciliation = outcome.stats;
        if (outcome.blocked) return finish('blocked', outcome.blocked);
      }
    } catch (error) {
      if (error instanceof RunCancelled || controller.signal.aborted) {
        return finish('cancelled', 'cancelled before the end: nothing was swept');
      }
      if (error instanceof CheckpointExpiredError && mode === 'incremental') {
        await finish('failed', `checkpoint expired: ${error.message}`);
        throw error;
      }
      return finish('failed', (error as Error).message);
    }

    if (mode === 'full') {
      const refused = refuseDeletes(await store.unseenActiveFileCount(source, runId), await store.activeFileCount(source));
      if (refused) {
        await store.clearSeen(runId);
        return finish('blocked', refused);
      }
      const swept = await store.sweep(source, runId, at());
      await releaseBlobs(swept.released);
      counts.deleted += swept.files + swept.users + swept.groups;
      await store.purgeTombstones(source, new Date(now().getTime() - options.tombstoneRetentionMs).toISOString());
      await store.clearSeen(runId);
      if (finalCheckpoint !== undefined && isIncremental(adapter)) await checkpoints.save(source, finalCheckpoint, at());
    }
    return finish('succeeded');
  }
}
