import { supportsAccessOnly, type AccessOnlyAdapter, type Adapter, type AdapterContext, type SyncEvent } from '../adapters/adapter';
import { DOCUMENT_CLASS_PREFIX } from '../policies/policy-compilation';
import { CheckpointsRepository } from '../staging/repositories/checkpoints-repository';
import { PolicyGroupsRepository } from '../staging/repositories/policy-groups-repository';
import { accessLockKey, SyncLock } from '../staging/repositories/sync-lock';
import { SyncRunsRepository } from '../staging/repositories/sync-runs-repository';
import { SyncStore } from '../staging/write-path/sync-store';
import { finishRun } from './finish-run';
import type { ReconciliationStats } from './reconcile-access';
import { RunCancelled, RunTally, stampOf, type RunContext } from './run-context';
import { applyBatch } from './stages/apply-batch';
import { reconciliationOf } from './stages/reconciliation-of-run';
import { decideBatch } from './stages/decide-batch';
import { PolicyStage, POLICY_GROUP_PREFIXES } from './stages/policy-stage';
import { readEvents } from './stages/read-events';
import { DEFAULT_SYNC_OPTIONS, type SyncDeps, type SyncOptions, type SyncSummary } from './sync-options';

/**
 * An access-only run: reads and applies who may see what, and nothing else. Users and groups (with
 * their members) from the adapter's `permissions()`, then every file's access list
 * from `liveFiles()`, rewritten where it differs from staging; no content or binary is read, no
 * file is added or deleted, no checkpoint is moved. It holds a lock of its own (per source and
 * kind), so it runs while a full or incremental run of the source holds the source's lock: a slow
 * crawl never delays a revocation. What it writes is as of its start (`files.access_as_of`), and a
 * run that started earlier never writes an older access list over it (SyncStore.apply).
 *
 * With an access policy, the policy stage is restored from the groups earlier runs staged (as an
 * incremental run restores it): users join the classes of their current attributes, the groups
 * are compiled again, and each listed file gets the document class of its listed attributes. A
 * file whose attributes fall in a class no run staged yet keeps its staged access (the next
 * content run reads it); a policy the staged groups were not compiled under fails the run.
 *
 * A file listed as unresolved (its rule read but not resolvable whole: `UnresolvedLiveFile`) has
 * its staged access list narrowed to what the source still grants, never widened (under a policy,
 * without its document-class grant), and counts as a failed item: the run ends `succeeded` with
 * it named among its failures while the error budget holds, as a content run does. A file listed
 * as unreadable (its access could not be read now: `UnreadableLiveFile`) keeps its staged access
 * list as it is and counts as a failed item the same way: no `settle` follows here, so a file the
 * listing left out instead would go unnoticed.
 */
export async function runAccessSync(adapter: Adapter, deps: SyncDeps, partial: Partial<SyncOptions> = {}): Promise<SyncSummary> {
  const options = { ...DEFAULT_SYNC_OPTIONS, ...partial };
  if (!supportsAccessOnly(adapter))
    throw new Error(`${adapter.name} cannot read access without content (it has no permissions() and standalone liveFiles()): no access-only run`);
  const now = deps.now ?? (() => new Date());
  const source = adapter.name;
  const accessAsOf = now().toISOString();
  const lock = new SyncLock(deps.db, accessLockKey(source), options.lockLeaseMs, now);
  await lock.acquire();
  try {
    const runs = new SyncRunsRepository(deps.db);
    const runId = await runs.start(source, 'access', accessAsOf, options.jobId);
    await runs.abandon(source, runId, accessAsOf, 'access');
    const controller = new AbortController();
    const onAbort = () => controller.abort(deps.signal?.reason);
    if (deps.signal?.aborted) controller.abort(deps.signal.reason);
    else deps.signal?.addEventListener('abort', onAbort, { once: true });
    const ctx: RunContext = {
      adapter,
      source,
      mode: 'access',
      runId,
      options,
      store: new SyncStore(deps.db),
      runs,
      checkpoints: new CheckpointsRepository(deps.db),
      blobs: deps.blobs,
      lock,
      logger: deps.logger.child({ source, kind: 'access' }),
      signal: controller.signal,
      started: Date.now(),
      accessAsOf,
      now,
    };
    try {
      const tally = new RunTally(options.errorBudget);
      try {
        const reconciliation = await readAccess(ctx, adapter, tally, new PolicyGroupsRepository(deps.db));
        return await finishRun(ctx, tally, { status: 'succeeded', resumed: false, reconciliation });
      } catch (error) {
        if (error instanceof RunCancelled || ctx.signal.aborted)
          return await finishRun(ctx, tally, { status: 'cancelled', error: 'cancelled', resumed: false });
        return await finishRun(ctx, tally, { status: 'failed', error: (error as Error).message, resumed: false });
      }
    } finally {
      deps.signal?.removeEventListener('abort', onAbort);
    }
  } finally {
    await lock.release();
  }
}

/**
 * Users and groups first (the access lists are served through them; with a policy, its groups
 * compiled from them), then the files' access lists.
 */
async function readAccess(ctx: RunContext, adapter: AccessOnlyAdapter, tally: RunTally, grants: PolicyGroupsRepository): Promise<ReconciliationStats> {
  const { policy } = ctx.options;
  const stage = policy && PolicyStage.restore(policy, ctx.source, await grants.load(ctx.source, POLICY_GROUP_PREFIXES));
  const checkpoint = await ctx.checkpoints.load(ctx.source);
  const adapterCtx: AdapterContext = { logger: ctx.logger, signal: ctx.signal, now: ctx.now, ...(checkpoint !== undefined ? { checkpoint } : {}) };
  const identities = identitiesOf(adapter.permissions(adapterCtx), tally);
  for await (const batch of readEvents(stage ? stage.apply(identities) : identities, tally, ctx.options.batchSize, ctx.signal)) {
    const decided = await decideBatch(ctx, tally, batch.events, stampOf(ctx));
    decided.seen = [];
    await applyBatch(ctx, decided, stampOf(ctx));
  }
  const reconciliation = reconciliationOf(ctx, tally, new Set());
  // What the listing cannot vouch for (files unlisted or missing) is left to the content runs;
  // files it lists as unresolved are narrowed, those it lists as unreadable kept (both counted as
  // failures) by the reconciler.
  const listing = adapter.liveFiles(adapterCtx);
  await reconciliation.compareListing(stage ? stage.listing(listing, await grants.fileGroups(ctx.source, DOCUMENT_CLASS_PREFIX)) : listing);
  const { findings } = reconciliation;
  return { ...findings, refreshed: 0, deleted: 0, unannounced: findings.accessRewritten };
}

/** Only users, groups and their deletes: files (and their content) are the content runs' to read. */
async function* identitiesOf(events: AsyncIterable<SyncEvent>, tally: RunTally): AsyncIterable<SyncEvent> {
  for await (const event of events) {
    if (event.type === 'file' || (event.type === 'delete' && event.kind === 'file')) tally.counts.skipped++;
    else if (event.type !== 'checkpoint') yield event;
  }
}
