import type { LiveFile, ResolvedLiveFile, SettleEvent, SettleRequest, SyncEvent, UnresolvedLiveFile } from '../adapters/adapter';
import type { FileState, PrincipalRef, SyncBatch } from '../staging/write-path/sync-store';
import { decideAccess, decideNarrowedAccess, globalId } from './record-rows';

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

/** What reconciliation decides and counts itself; the engine adds what it commits (refreshed and deleted files). */
export type ReconciliationFindings = Pick<ReconciliationStats, 'listed' | 'unlisted' | 'missing' | 'accessRewritten'>;

/** The access rewrites of one batch of files (a transaction). */
export type AccessRewrites = SyncBatch['permissions'];

/** What reconciliation reads of the source's staged files, and its one write: access lists. */
export interface ReconcileStaging {
  fileStates(ids: readonly string[]): Promise<ReadonlyMap<string, FileState>>;
  /** The staged access lists of these files (a file with none is left out). */
  stagedAccess(ids: readonly string[]): Promise<ReadonlyMap<string, readonly PrincipalRef[]>>;
  /** Global ids of the source's active files. */
  activeFileIds(): Promise<string[]>;
  /** Rewrites these access lists in one transaction. */
  rewriteAccess(rewrites: AccessRewrites): Promise<void>;
}

export interface ReconcileInput {
  source: string;
  batchSize: number;
  /** Global ids this run's changes already wrote, deleted or failed: the listing need not vouch for them. */
  touched: ReadonlySet<string>;
  staging: ReconcileStaging;
  /** The time of a write, as staging stores it. */
  stamp(): string;
  /**
   * The run's count: each listed file compared is an item of the error budget; a listed file
   * whose access could not be resolved whole (`UnresolvedLiveFile`) or read (`UnreadableLiveFile`)
   * is a failure, charged once its batch is rewritten (the budget throws when spent).
   */
  tally: { item(): void; fail(what: string, error: Error): void };
}

/** The staged files the adapter found gone or said nothing about, for the engine to tombstone behind the mass-deletion guard. */
export interface ReconcileVerdict {
  /** Global ids, sorted. */
  gone: string[];
  /** Active files of the source when the listing ended (what the guard weighs `gone` against). */
  active: number;
}

/** Settle rounds at most: the second only re-reads files whose access the first one found changed. */
const SETTLE_ROUNDS = 2;

/**
 * Access reconciliation, after an incremental run's changes are committed. The engine drives it
 * in steps and commits what it asks for; it never calls the engine:
 *
 * 1. `compareListing`: compares the adapter's live listing with staging, rewrites the access lists
 *    that differ (narrows those of files it lists as unresolved, keeps those it lists as
 *    unreadable), and returns what to ask `settle` about: the staged files neither the run nor the
 *    listing showed, the listed files staging lacks and the files whose access changed. A listing
 *    that fails part way throws, so an incomplete listing never deletes.
 * 2. `answers`, once per request (`nextRequest` gives the next one): takes `settle`'s `live`
 *    answers (access rewrites) and file deletes; every other answer is returned for the engine to
 *    commit through its pipeline.
 * 3. `verdict`: the staged files found gone or left unanswered, which the engine tombstones unless
 *    the mass-deletion guard refuses.
 */
export class AccessReconciliation {
  readonly findings: ReconciliationFindings = { listed: 0, unlisted: 0, missing: 0, accessRewritten: 0 };
  private readonly listed = new Set<string>();
  /** Global ids settle answered for (live, file, delete or failure). */
  private readonly answered = new Set<string>();
  /** Global ids settle said are gone. */
  private readonly gone = new Set<string>();
  /** Native ids whose access an answer rewrote: the next round may refresh their content. */
  private readonly accessChanged: string[] = [];
  private active: string[] = [];
  private unlisted: string[] = [];
  /** Settle rounds done. */
  private rounds = 0;

  constructor(private readonly input: ReconcileInput) {}

  /** Step 1: the listing against staging, a batch at a time; the first request for `settle`, or undefined when there is nothing to ask. */
  async compareListing(files: AsyncIterable<LiveFile>): Promise<SettleRequest | undefined> {
    const { source, touched, batchSize } = this.input;
    const missing: string[] = [];
    const records = new Map<string, unknown>();
    const accessChanged: string[] = [];
    let chunk: LiveFile[] = [];
    const compare = async (): Promise<void> => {
      const fresh = chunk.filter((f) => !this.listed.has(globalId(source, f.nativeId)));
      for (const f of fresh) this.listed.add(globalId(source, f.nativeId));
      const result = await this.rewriteAccess(fresh);
      // What this run's changes read just now needs no second read.
      const untouched = (files: LiveFile[]) => files.filter((f) => !touched.has(globalId(source, f.nativeId)));
      for (const file of untouched(result.missing)) {
        missing.push(file.nativeId);
        if (file.record !== undefined) records.set(file.nativeId, file.record);
      }
      accessChanged.push(...untouched(result.rewritten).map((f) => f.nativeId));
      chunk = [];
    };
    for await (const file of files) {
      this.findings.listed++;
      chunk.push(file);
      if (chunk.length >= batchSize) await compare();
    }
    await compare();
    this.active = await this.input.staging.activeFileIds();
    this.unlisted = this.active.filter((id) => !this.listed.has(id) && !touched.has(id));
    this.findings.unlisted = this.unlisted.length;
    this.findings.missing = missing.length;
    const unlisted = this.unlisted.map((id) => id.slice(source.length + 1));
    return this.request({ unlisted, missing, accessChanged, ...(records.size > 0 ? { records } : {}) });
  }

  /**
   * Step 2: one round of `settle`'s answers. `live` answers rewrite access and file deletes are held
   * for the verdict; the rest comes out for the engine to commit.
   */
  async *answers(events: AsyncIterable<SettleEvent>): AsyncIterable<SyncEvent> {
    const { source, batchSize } = this.input;
    let live: LiveFile[] = [];
    const flushLive = async (): Promise<void> => {
      const { rewritten } = await this.rewriteAccess(live);
      this.accessChanged.push(...rewritten.map((f) => f.nativeId));
      live = [];
    };
    for await (const event of events) {
      const id = eventFileId(source, event);
      if (id !== undefined) this.answered.add(id);
      if (event.type === 'live') {
        live.push(event.file);
        if (live.length >= batchSize) await flushLive();
      } else if (event.type === 'delete' && event.kind === 'file') {
        this.gone.add(globalId(source, event.nativeId));
      } else {
        if (event.type === 'file') this.gone.delete(globalId(source, event.file.nativeId));
        yield event;
      }
    }
    await flushLive();
  }

  /** After a round: the next request for `settle` (files whose access that round rewrote), or undefined when done. */
  nextRequest(): SettleRequest | undefined {
    this.rounds++;
    return this.rounds < SETTLE_ROUNDS ? this.request({ unlisted: [], missing: [], accessChanged: this.accessChanged.splice(0) }) : undefined;
  }

  /** Step 3: what the adapter found gone or said nothing about, among the files staged when the listing ended. */
  verdict(): ReconcileVerdict {
    const staged = new Set(this.active);
    const unanswered = this.unlisted.filter((id) => !this.answered.has(id));
    return { gone: [...new Set([...this.gone, ...unanswered])].filter((id) => staged.has(id)).sort(), active: this.active.length };
  }

  private request(r: SettleRequest): SettleRequest | undefined {
    return r.unlisted.length === 0 && r.missing.length === 0 && r.accessChanged.length === 0 ? undefined : r;
  }

  /**
   * Rewrites (in one transaction) the access lists of `files` that differ from staging, a file
   * whose access could not be resolved whole narrowed to what it still grants (never widened), a
   * file whose access could not be read left as staged; then counts them. Returns those rewritten
   * and those staging lacks, files that failed aside (nothing to read whole: they would fail again).
   */
  private async rewriteAccess(files: readonly LiveFile[]): Promise<{ rewritten: LiveFile[]; missing: LiveFile[] }> {
    const out = { rewritten: [] as LiveFile[], missing: [] as LiveFile[] };
    if (files.length === 0) return out;
    const { source, staging, touched, tally } = this.input;
    const read = files.filter((f): f is ResolvedLiveFile | UnresolvedLiveFile => f.unreadable === undefined);
    const ids = read.map((f) => globalId(source, f.nativeId));
    const states = read.length > 0 ? await staging.fileStates(ids) : new Map<string, FileState>();
    const narrowed = ids.filter((_, i) => read[i]?.unresolved !== undefined);
    const staged = narrowed.length > 0 ? await staging.stagedAccess(narrowed) : new Map<string, readonly PrincipalRef[]>();
    const rewrites: AccessRewrites = [];
    const at = this.input.stamp();
    read.forEach((file, i) => {
      const id = ids[i] as string;
      const decision =
        file.unresolved !== undefined
          ? decideNarrowedAccess(source, file.accessAtMost, staged.get(id) ?? [], states.get(id), at)
          : decideAccess(source, file.access, states.get(id), at);
      if (decision.kind === 'permissions') rewrites.push({ fileId: id, permissions: decision.permissions, hash: decision.hash, at: decision.at });
      if (file.unresolved !== undefined) return;
      if (decision.kind === 'missing') out.missing.push(file);
      else if (decision.kind === 'permissions') out.rewritten.push(file);
    });
    if (rewrites.length > 0) await staging.rewriteAccess(rewrites);
    this.findings.accessRewritten += rewrites.length;
    for (const file of files) {
      const failure = file.unresolved ?? file.unreadable;
      // A failure the run's changes already counted (they read the file) is not counted twice.
      if (failure !== undefined && !touched.has(globalId(source, file.nativeId))) tally.fail(file.nativeId, failure);
      else tally.item();
    }
    return out;
  }
}

/** The global id of the file an event writes, deletes, fails or vouches for (undefined for other events). */
export function eventFileId(source: string, event: SettleEvent): string | undefined {
  if (event.type === 'live' || event.type === 'file') return globalId(source, event.file.nativeId);
  if (event.type === 'delete' && event.kind === 'file') return globalId(source, event.nativeId);
  if (event.type === 'failure' && event.kind === 'file' && event.nativeId !== undefined) return globalId(source, event.nativeId);
  return undefined;
}
