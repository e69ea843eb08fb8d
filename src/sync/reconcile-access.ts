import type { AccessReconcilingAdapter, AdapterContext, LiveFile, SettleEvent, SettleRequest, SyncEvent } from '../adapters/adapter';
import { chunks } from '../lib/chunks';
import type { SyncCounts } from '../staging/sync-runs-repository';
import { emptyBatch, type SyncBatch, type SyncStore } from '../staging/sync-store';
import { decideAccess, globalId } from './record-rows';

/** What access reconciliation did in a run (the summary reports it; `unannounced` goes to `sync_runs`). */
export interface ReconciliationStats {
  /** Files the live listing showed. */
  listed: number;
  /** Staged files that neither the run's changes nor the listing showed (asked about). */
  unlisted: number;
  /** Listed files staging did not serve (read whole). */
  missing: number;
  /** Access lists rewritten because the listing (or the adapter's answer) differed from staging. */
  accessRewritten: number;
  /** Files written from content read again during reconciliation. */
  refreshed: number;
  /** Staged files found gone, now tombstones. */
  deleted: number;
  /** Changes no event announced: `accessRewritten + refreshed + deleted`. */
  unannounced: number;
}

/** What the engine lends reconciliation: its store, its pipeline and its guards. */
export interface ReconcileDeps {
  adapter: AccessReconcilingAdapter;
  ctx: AdapterContext;
  store: SyncStore;
  source: string;
  batchSize: number;
  /** The run's counts: access rewrites count as changed, tombstones as deleted. */
  counts: SyncCounts;
  at(): string;
  /** Global ids this run's changes already wrote, deleted or failed. */
  touched: ReadonlySet<string>;
  /** Writes one batch in one transaction (the engine checks its lock and releases blobs). */
  apply(batch: SyncBatch): Promise<void>;
  /** Runs sync events through the engine's pipeline (decisions, error budget, checkpoints) and commits them. */
  consume(events: AsyncIterable<SyncEvent>): Promise<void>;
  /** Why tombstoning `deletes` of `active` files is refused (the mass-deletion guard), or undefined. */
  refuseDeletes(deletes: number, active: number): string | undefined;
}

export interface ReconcileOutcome {
  stats: ReconciliationStats;
  /** Set when the mass-deletion guard kept the run from tombstoning what the source no longer lists. */
  blocked?: string;
}

/** Settle rounds at most: the second only re-reads files whose access the first one found changed. */
const SETTLE_ROUNDS = 2;

/**
 * Access reconciliation, after an incremental run's changes are committed: compares the adapter's
 * live listing with staging and rewrites the access lists that differ; asks the adapter to settle
 * the staged files neither the run nor the listing showed, the listed files staging lacks and the
 * files whose access changed; then tombstones what the adapter found gone or said nothing about,
 * behind the mass-deletion guard. A listing that fails part way throws before anything is
 * tombstoned, so an incomplete listing never deletes.
 */
export async function reconcileAccess(d: ReconcileDeps): Promise<ReconcileOutcome> {
  const stats: ReconciliationStats = { listed: 0, unlisted: 0, missing: 0, accessRewritten: 0, refreshed: 0, deleted: 0, unannounced: 0 };
  const listed = new Set<string>();
  const found = await compareListing(d, stats, listed);
  const active = await d.store.activeFileIds(d.source);
  const unlisted = active.filter((id) => !listed.has(id) && !d.touched.has(id));
  stats.unlisted = unlisted.length;
  stats.missing = found.missing.length;

  const answers: Answers = { answered: new Set(), gone: new Set(), accessChanged: [] };
  let request: SettleRequest = { unlisted: unlisted.map((id) => nativeOf(d.source, id)), missing: found.missing, accessChanged: found.accessChanged };
  for (let round = 0; round < SETTLE_ROUNDS && !isEmpty(request); round++) {
    await settleRound(d, request, stats, answers);
    request = { unlisted: [], missing: [], accessChanged: answers.accessChanged.splice(0) };
  }

  const staged = new Set(active);
  const gone = [...new Set([...answers.gone, ...unlisted.filter((id) => !answers.answered.has(id))])].filter((id) => staged.has(id)).sort();
  const blocked = gone.length > 0 ? d.refuseDeletes(gone.length, active.length) : undefined;
  if (!blocked) await tombstone(d, gone, stats);
  stats.unannounced = stats.accessRewritten + stats.refreshed + stats.deleted;
  return blocked ? { stats, blocked } : { stats };
}

interface Answers {
  /** Global ids settle answered for (live, file, delete or failure). */
  answered: Set<string>;
  /** Global ids settle said are gone. */
  gone: Set<string>;
  /** Native ids whose access an answer rewrote: the next round may refresh their content. */
  accessChanged: string[];
}

/** The listing against staging, a batch at a time: rewrites what differs, and tells what is missing or changed. */
async function compareListing(d: ReconcileDeps, stats: ReconciliationStats, listed: Set<string>): Promise<{ missing: string[]; accessChanged: string[] }> {
  const out = { missing: [] as string[], accessChanged: [] as string[] };
  let chunk: LiveFile[] = [];
  const compare = async (): Promise<void> => {
    const fresh = chunk.filter((f) => !listed.has(globalId(d.source, f.nativeId)));
    for (const f of fresh) listed.add(globalId(d.source, f.nativeId));
    const result = await rewriteAccess(d, fresh, stats);
    // What this run's changes read just now needs no second read.
    const untouched = (ids: string[]) => ids.filter((n) => !d.touched.has(globalId(d.source, n)));
    out.missing.push(...untouched(result.missing));
    out.accessChanged.push(...untouched(result.rewritten));
    chunk = [];
  };
  for await (const file of d.adapter.liveFiles(d.ctx)) {
    stats.listed++;
    chunk.push(file);
    if (chunk.length >= d.batchSize) await compare();
  }
  await compare();
  return out;
}

/** Rewrites (in one transaction) the access lists of `files` that differ from staging; native ids of those rewritten and of those staging lacks. */
async function rewriteAccess(d: ReconcileDeps, files: readonly LiveFile[], stats: ReconciliationStats): Promise<{ rewritten: string[]; missing: string[] }> {
  const out = { rewritten: [] as string[], missing: [] as string[] };
  if (files.length === 0) return out;
  const ids = files.map((f) => globalId(d.source, f.nativeId));
  const states = await d.store.fileStates(ids);
  const batch = emptyBatch();
  const at = d.at();
  files.forEach((file, i) => {
    const id = ids[i] as string;
    const decision = decideAccess(d.source, file.access, states.get(id), at);
    if (decision.kind === 'missing') out.missing.push(file.nativeId);
    else if (decision.kind === 'permissions') {
      batch.permissions.push({ fileId: id, permissions: decision.permissions, hash: decision.hash, at: decision.at });
      out.rewritten.push(file.nativeId);
    }
  });
  if (batch.permissions.length > 0) await d.apply(batch);
  stats.accessRewritten += batch.permissions.length;
  d.counts.changed += batch.permissions.length;
  return out;
}

/** One call of `settle`: `live` answers rewrite access, file deletes are held for the guard, the rest goes through the engine. */
async function settleRound(d: ReconcileDeps, request: SettleRequest, stats: ReconciliationStats, answers: Answers): Promise<void> {
  const before = { written: d.counts.added + d.counts.changed, rewritten: stats.accessRewritten };
  await d.consume(routeAnswers(d, d.adapter.settle(d.ctx, request), stats, answers));
  const written = d.counts.added + d.counts.changed - before.written;
  stats.refreshed += written - (stats.accessRewritten - before.rewritten);
}

async function* routeAnswers(d: ReconcileDeps, events: AsyncIterable<SettleEvent>, stats: ReconciliationStats, answers: Answers): AsyncGenerator<SyncEvent> {
  let live: LiveFile[] = [];
  const flushLive = async (): Promise<void> => {
    const { rewritten } = await rewriteAccess(d, live, stats);
    answers.accessChanged.push(...rewritten);
    live = [];
  };
  for await (const event of events) {
    const id = eventFileId(d.source, event);
    if (id !== undefined) answers.answered.add(id);
    if (event.type === 'live') {
      live.push(event.file);
      if (live.length >= d.batchSize) await flushLive();
    } else if (event.type === 'delete' && event.kind === 'file') {
      answers.gone.add(globalId(d.source, event.nativeId));
    } else {
      if (event.type === 'file') answers.gone.delete(globalId(d.source, event.file.nativeId));
      yield event;
    }
  }
  await flushLive();
}

/** The global id of the file an event writes, deletes, fails or vouches for (undefined for other events). */
export function eventFileId(source: string, event: SettleEvent): string | undefined {
  if (event.type === 'live' || event.type === 'file') return globalId(source, event.file.nativeId);
  if (event.type === 'delete' && event.kind === 'file') return globalId(source, event.nativeId);
  if (event.type === 'failure' && event.kind === 'file' && event.nativeId !== undefined) return globalId(source, event.nativeId);
  return undefined;
}

async function tombstone(d: ReconcileDeps, ids: readonly string[], stats: ReconciliationStats): Promise<void> {
  for (const part of chunks(ids, d.batchSize)) {
    await d.apply({ ...emptyBatch(), tombstones: part });
    stats.deleted += part.length;
    d.counts.deleted += part.length;
  }
}

function nativeOf(source: string, id: string): string {
  return id.slice(source.length + 1);
}

function isEmpty(r: SettleRequest): boolean {
  return r.unlisted.length === 0 && r.missing.length === 0 && r.accessChanged.length === 0;
}
