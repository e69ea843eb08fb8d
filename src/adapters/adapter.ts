import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Logger } from '../logging/create-logger';

/**
 * The adapter contract. An adapter reads one source system and yields events; it never touches
 * the database, the blob store or the HTTP layer (the sync engine owns every write). Ids are the
 * source's own ("native"); the engine prefixes them with the adapter's name, so `name` is the id
 * namespace of everything the adapter yields and must never change once content is served.
 */
export interface AdapterContext {
  logger: Logger;
  /** Aborted when the run is cancelled: stop fetching promptly. */
  signal: AbortSignal;
  now(): Date;
  /**
   * What staging holds of the source's files, given to `changes()` by the sync engine: an adapter
   * that compares its walk with it keeps no per-file state in its checkpoint.
   */
  staged?: StagedFiles;
  /**
   * Given to `permissions()` in an access-only run: the source's last stored checkpoint (of the
   * last content run, or of a full run still under way), unvalidated and read-only. What it
   * lists (the users and groups yielded, a task's attachments) lets the adapter delete those gone
   * and list files it cannot find cheaply; an adapter that needs none ignores it.
   */
  checkpoint?: unknown;
}

/**
 * The source's staged files, as an incremental run of an adapter that lists everything it has
 * (a folder walk) compares with them: the version each file was last staged at, and the files the
 * run did not list (gone at the source). Read-only for the adapter; the engine keeps the marks.
 * Results cross threads (structured cloning): plain maps and arrays.
 */
export interface StagedFiles {
  /**
   * Marks these files (native ids) as listed by this run, and answers the staged version of each
   * that staging serves (null: served, with no version kept). Files staging does not serve are
   * left out of the answer.
   */
  list(nativeIds: readonly string[]): Promise<Map<string, string | null>>;
  /** How many files staging serves. */
  count(): Promise<number>;
  /** How many served files this run has not listed (so far). */
  unlistedCount(): Promise<number>;
  /** Served files this run has not listed, in id order: `limit` of them after `after` (a native id; undefined: from the first). */
  unlisted(after: string | undefined, limit: number): Promise<string[]>;
}

export type SupportedMimeType =
  | 'text/html'
  | 'application/pdf'
  | 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  | 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
  | 'text/plain';

export const SUPPORTED_MIME_TYPES: readonly SupportedMimeType[] = [
  'text/html',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'text/plain',
];

/**
 * Who may see a file, or who belongs to a group. `nativeId` is in this adapter's namespace unless
 * `source` names another adapter's (for directories shared between sources).
 */
export type Principal = { type: 'USER' | 'GROUP'; nativeId: string; source?: string };

/** Access entry for "every user": served as the platform's wildcard `GROUP *`. */
export const EVERYONE = { type: 'EVERYONE' } as const;
export type AccessEntry = Principal | typeof EVERYONE;

/** Inline HTML at hand: the engine hashes it on every run. */
export interface InlineHtml {
  kind: 'html';
  html: string;
  /**
   * A cheap fingerprint of the file at the source, kept with the staged row (the engine does not
   * skip anything on it): what `StagedFiles.list` answers on later runs.
   */
  version?: string;
}

/**
 * Inline HTML read only when the engine needs it, like binary content: `load()` is called only when
 * the file is new, its `version` differs from the stored one (or is unknown), or its row must be
 * written again and staging cannot give its body back; otherwise the staged body is kept while
 * access and metadata are still applied. The engine starts every load of a batch at once (in one
 * tick), so an adapter can read a batch's bodies in one query.
 */
export interface LazyHtml {
  kind: 'html';
  load(): Promise<string>;
  /**
   * A cheap fingerprint of everything the HTML is made of (a modified time, a revision id, and
   * the template's). When it equals the stored one, the body is not read. Omit it to always load.
   */
  version?: string;
}

export type FileContent =
  | InlineHtml
  | LazyHtml
  | {
      kind: 'binary';
      /**
       * Opens the bytes; called only when the engine needs them (new or changed `version`). Content
       * small enough to hold may come as one Buffer (it skips a stream's machinery); anything else
       * as a stream, so memory stays flat.
       */
      open(): Promise<Readable | Buffer>;
      /**
       * A cheap fingerprint of the bytes at the source (etag, mtime+size, revision id). When it
       * equals the stored one, the engine skips the download. Omit it to always download.
       */
      version?: string;
    };

/**
 * A value an access policy can test (src/policies): documents' and users' attributes. Not served;
 * `customAttributes` is what the platform sees.
 */
export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Readonly<Record<string, AttributeValue>>;

export interface FileRecord {
  nativeId: string;
  name: string;
  externalUrl: string;
  mimeType: SupportedMimeType;
  content: FileContent;
  /** Direct access entries. An empty list means nobody (deny by default). */
  access: readonly AccessEntry[];
  createdAt?: string;
  createdBy?: string;
  modifiedBy?: string;
  parent?: { nativeId: string; name: string; path?: string };
  customAttributes?: Record<string, string>;
  /** Policy inputs (kind, space, department, level, ...): what access policies are evaluated on. */
  attributes?: Attributes;
}

export interface UserRecord {
  nativeId: string;
  email: string;
  fullName?: string;
  active: boolean;
  metadata?: Record<string, unknown>;
  /** Policy inputs: the user's attributes (department, clearance, ...) and role names. */
  attributes?: Attributes;
  roles?: readonly string[];
}

export interface GroupRecord {
  nativeId: string;
  name?: string;
  /** Direct members only: a sub-group is a GROUP member, never expanded. */
  members: readonly Principal[];
  createdAt?: string;
  metadata?: Record<string, unknown>;
}

export type SyncEvent =
  | { type: 'file'; file: FileRecord }
  | { type: 'user'; user: UserRecord }
  | { type: 'group'; group: GroupRecord }
  /** Incremental runs: the item is gone at the source (files become tombstones, users Inactive). */
  | { type: 'delete'; kind: 'file' | 'user' | 'group'; nativeId: string }
  /**
   * A resumable position. The engine stores it once every event before it is committed; a run
   * killed after that resumes from here. Replaced, never mutated: yield a new object each time.
   */
  | { type: 'checkpoint'; checkpoint: unknown }
  /**
   * One item could not be read; the run goes on, within the error budget, and the item is retried
   * next run. A failed file or group keeps its staged state (nothing is lost when a read fails),
   * but for `accessAtMost` and `membersAtMost`.
   */
  | {
      type: 'failure';
      kind?: 'file' | 'user' | 'group';
      nativeId?: string;
      error: Error;
      /**
       * A file whose new access rule was read but cannot be resolved whole (it names someone
       * unknown): the entries the source still grants for certain, the resolvable part of that rule.
       * The engine narrows the file's staged access list to its intersection with these, never
       * widening it, so nobody the source withdrew keeps the file (`[]`: served to nobody until
       * fixed). Left out for transient failures (an I/O error, a 5xx): staged access is kept.
       */
      accessAtMost?: readonly AccessEntry[];
      /**
       * A group (`kind: 'group'`) whose member list was read whole but cannot be resolved whole (an
       * entry of a type the adapter does not know, without an id, naming someone unknown): the
       * members the source still lists for certain, the resolvable part. The engine narrows the
       * group's staged members to their intersection with these (a sub-group compared as an entry,
       * like a user), never adding one, so a member the source removed loses what the group gives
       * (`[]`: the group has no members until fixed); a group not staged stays unstaged. Left out
       * for transient failures (a failed page of the member listing, a 5xx): staged members are
       * kept, never a truncated list.
       */
      membersAtMost?: readonly Principal[];
    };

export interface Adapter {
  /** The id prefix of everything it yields: lower-case letters, digits and dashes. */
  readonly name: string;
  /**
   * Everything the source has now. The engine sweeps what a completed full run did not yield.
   * `resume` is the last checkpoint of an interrupted full run (valid per `checkpointSchema` when
   * the adapter is incremental), to continue where it stopped.
   */
  full(ctx: AdapterContext, resume?: unknown): AsyncIterable<SyncEvent>;
}

/** An adapter that can sync only what changed since a checkpoint. */
export interface IncrementalAdapter<C = unknown> extends Adapter {
  /** Validates stored checkpoints; an invalid one makes the engine run a full sync instead. */
  readonly checkpointSchema: z.ZodType<C>;
  /**
   * Changes since `since`, with explicit `delete` events. Throws `FullRunRequired` (with its reason)
   * when a full run is needed instead: before the first event, so the run is full from the start,
   * when that can be known up front (the checkpoint is of another configuration, an access policy
   * changed); later when only the walk finds out (an expired sync token).
   */
  changes(ctx: AdapterContext, since: C): AsyncIterable<SyncEvent>;
}

interface LiveFileBase {
  nativeId: string;
  /**
   * The same policy inputs a `file` event would carry, when the listing can read them cheaply: an
   * access policy then recomputes the file's document class from them, so a change of attributes
   * the change feed missed still changes access. Left out, the file keeps its staged class.
   */
  attributes?: Attributes;
  /**
   * What the adapter needs to read this file whole should staging lack it (the record its listing
   * read): opaque to the engine, which keeps it only for the files staging lacks and hands it back
   * in `SettleRequest.records`, so the adapter need not hold every listed record until `settle`.
   */
  record?: unknown;
}

/** A listed file whose access the listing read whole. */
export interface ResolvedLiveFile extends LiveFileBase {
  /** The same access list a `file` event would carry. */
  access: readonly AccessEntry[];
  unresolved?: undefined;
  accessAtMost?: undefined;
  unreadable?: undefined;
}

/**
 * A listed file whose new access rule was read but cannot be resolved whole (it names a principal
 * the source does not know, an access row of an unknown type, a sidecar that does not parse): the
 * listing's counterpart of a `failure` event with `accessAtMost`. The engine narrows the file's
 * staged access list to its intersection with `accessAtMost` (never widening it, and never
 * staging a file staging lacks: no `settle` is asked to read it), in access-only runs and in
 * reconciliation alike; under an access policy no document-class grant is added, so the
 * intersection drops it until the file is read whole again (closed). The file counts as a failed
 * item of the run (charged to the error budget, named with `unresolved`'s message in the run's
 * failures), unless the run's changes already read it. A transient failure (an I/O error, a 5xx)
 * is never given this way: the file is listed as an `UnreadableLiveFile`, or the listing throws.
 */
export interface UnresolvedLiveFile extends LiveFileBase {
  /** Why the rule could not be resolved whole. */
  unresolved: Error;
  /** What the source still grants for certain: the resolvable part of the rule (`[]`: nobody). */
  accessAtMost: readonly AccessEntry[];
  access?: undefined;
  unreadable?: undefined;
}

/**
 * A listed file that exists but whose access could not be read now, for a transient reason (a
 * failed access request, a 5xx after retries, an I/O error): nothing is known of its rule, so
 * nothing is narrowed. The engine keeps its staged access list as it is (never narrowed, never
 * widened, never staging a file staging lacks), never takes it as gone and never asks `settle`
 * about it (it is neither unlisted nor missing), in access-only runs and in reconciliation alike;
 * under an access policy its staged grant stays too. The file counts as a failed item of the run
 * (charged to the error budget, named with `unreadable`'s message in the run's failures), unless
 * the run's changes already read it. Leaving such a file out of the listing instead would be
 * silent in an access-only run (no `settle` follows) and would make reconciliation ask whether it
 * is gone.
 */
export interface UnreadableLiveFile extends LiveFileBase {
  /** Why its access could not be read. */
  unreadable: Error;
  access?: undefined;
  unresolved?: undefined;
  accessAtMost?: undefined;
}

/** A file as a cheap listing sees it: that it exists, and who may see it (no content), or why that could not be known. */
export type LiveFile = ResolvedLiveFile | UnresolvedLiveFile | UnreadableLiveFile;

/** What staging and the live listing disagree on, for the adapter to settle (native ids). */
export interface SettleRequest {
  /**
   * Staged files that neither this run's changes nor the listing showed. For each, yield `live`
   * (it exists, with this access), a `file` or a `delete`; one the adapter says nothing about is
   * taken as gone and becomes a tombstone.
   */
  unlisted: readonly string[];
  /** Listed files staging does not serve: yield a `file` for each (content read whole), or a failure. */
  missing: readonly string[];
  /** The `record` each missing file was listed with, when it had one (native id -> record). */
  records?: ReadonlyMap<string, unknown>;
  /**
   * Listed (or settled) files whose access changed although no event said so: their content may
   * have changed with it (a page that names its project). Yield a `file` to refresh one, or nothing.
   */
  accessChanged: readonly string[];
}

/**
 * What `settle` yields: sync events, or `live` (the file exists with this access, or an
 * `UnresolvedLiveFile` or `UnreadableLiveFile`; its content as staged).
 */
export type SettleEvent = SyncEvent | { type: 'live'; file: LiveFile };

/**
 * Access reconciliation, for incremental adapters whose change feed can lose changes (events
 * delivered at most once, a change table pruned before it was read): after `changes()`, the
 * engine takes the live files with their access from `liveFiles`, rewrites the access lists that
 * differ from staging, and asks `settle` about what the listing could not vouch for — staged
 * files it did not show, listed files staging lacks, files whose access changed. A lost event
 * can then delay a change of content, never a change of access or a deletion.
 *
 * Both are called on the adapter instance that ran `changes()`, right after it in the same run,
 * and may use what that run read. Neither touches staging: the engine compares and writes.
 */
export interface AccessReconcilingAdapter<C = unknown> extends IncrementalAdapter<C> {
  /** Every file the source can list cheaply, with its current access (no content). Must not yield a file twice. */
  liveFiles(ctx: AdapterContext): AsyncIterable<LiveFile>;
  settle(ctx: AdapterContext, request: SettleRequest): AsyncIterable<SettleEvent>;
}

/**
 * An adapter that can refresh access lists and directories without re-reading content: what an
 * access-only run (`sync --access-only`, src/sync/run-access-sync.ts) needs. `permissions` yields
 * users and groups (with their members) and their deletes; file events it yields are skipped.
 */
export interface PermissionSyncAdapter extends Adapter {
  permissions(ctx: AdapterContext): AsyncIterable<SyncEvent>;
}

/**
 * An adapter an access-only run can work: its `permissions`, then, on the same instance, every
 * file with its access from `liveFiles`, which here must not need an earlier `changes()` (only
 * the `permissions()` just before it). An error reading users, groups or access must be thrown
 * (the run fails and staging keeps what it serves), never answered with an empty list; a file
 * whose access cannot be read for a transient reason is listed as an `UnreadableLiveFile` (it
 * keeps its staged access; the run names it among its failures), one whose rule cannot be
 * resolved whole as an `UnresolvedLiveFile` (its staged access narrowed). A file left out of the
 * listing keeps its staged access silently: an access-only run asks no `settle` about it.
 */
export interface AccessOnlyAdapter extends PermissionSyncAdapter {
  liveFiles(ctx: AdapterContext): AsyncIterable<LiveFile>;
}

export function isIncremental(adapter: Adapter): adapter is IncrementalAdapter {
  return typeof (adapter as Partial<IncrementalAdapter>).changes === 'function' && (adapter as Partial<IncrementalAdapter>).checkpointSchema !== undefined;
}

export function reconcilesAccess(adapter: Adapter): adapter is AccessReconcilingAdapter {
  const a = adapter as Partial<AccessReconcilingAdapter>;
  return isIncremental(adapter) && typeof a.liveFiles === 'function' && typeof a.settle === 'function';
}

export function supportsPermissionSync(adapter: Adapter): adapter is PermissionSyncAdapter {
  return typeof (adapter as Partial<PermissionSyncAdapter>).permissions === 'function';
}

export function supportsAccessOnly(adapter: Adapter): adapter is AccessOnlyAdapter {
  return supportsPermissionSync(adapter) && typeof (adapter as Partial<AccessOnlyAdapter>).liveFiles === 'function';
}

export const ADAPTER_NAME = /^[a-z][a-z0-9-]{0,31}$/;
