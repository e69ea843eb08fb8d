import path from 'node:path';
import { throwIfAborted } from '../../lib/abort-error';
import type { StagedFiles } from '../adapter';
import { FullRunRequired } from '../source-error';
import type { FilesystemCheckpoint } from './filesystem-checkpoint';
import { compareCodeUnits } from './filesystem-mapping';
import type { TreeEntry, TreeFile, TreeFolder } from './filesystem-tree';

/**
 * An incremental run that would delete more than this share of the files (of a tree with at
 * least `minFiles`) looks like an unmounted or emptied share, not like edits: it hands over to a
 * full run, where the engine's mass-deletion guard decides.
 */
export const INCREMENTAL_DELETE_GUARD = { share: 0.5, minFiles: 10 } as const;

/** Walked files whose staged versions are asked for at once (and marked listed). */
const LOOKUP_BATCH = 256;
/** Staged files the walk did not list, read a page at a time. */
const GONE_PAGE = 500;

/** What a walk has seen so far, beyond its files (whose state is staged, not held here); the next checkpoint is made of it. */
export interface TreeScan {
  /** Each sidecar's NFC relative path and the SHA-256 of its bytes. */
  sidecars: Map<string, string>;
  /** Folders whose rule may differ from last time: own sidecars changed, or (without one) an ancestor's did. */
  ruleChanged: Map<string, boolean>;
  /** Files that could not be synced (retried by every incremental run). */
  failed: string[];
  /** Files of the baseline's `failed` the walk found again. */
  foundFailed: Set<string>;
}

/**
 * What an incremental walk compares with: the staged files (their versions, and which of them the
 * walk did not list), the last run's failures and sidecars, and the principals that appeared or
 * disappeared since.
 */
export interface ScanBaseline {
  staged: StagedFiles;
  failed: ReadonlySet<string>;
  /** The last run's sidecars, by folder (NFC relative path, '' for the root). */
  sidecars: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** `USER:id` / `GROUP:id` added to or removed from the directory. */
  changedPrincipals: ReadonlySet<string>;
}

export function newTreeScan(): TreeScan {
  return { sidecars: new Map(), ruleChanged: new Map(), failed: [], foundFailed: new Set() };
}

export function scanBaseline(checkpoint: FilesystemCheckpoint, changedPrincipals: ReadonlySet<string>, staged: StagedFiles): ScanBaseline {
  return { staged, failed: new Set(checkpoint.failed), sidecars: groupByFolder(checkpoint.sidecars), changedPrincipals };
}

/** The version a file is staged with: `racy:` prefixed when modified too close to the scan to trust, so the next run reads it again. */
function recordedVersion(file: TreeFile, racyFrom: number): string {
  return file.mtimeMs >= racyFrom ? `racy:${file.version}` : file.version;
}

/**
 * The walk's files that need reading, in walk order, each with the version to stage it with:
 * every file on a full run (no baseline); else those `needsSync` picks, against the staged
 * versions, asked for `LOOKUP_BATCH` files at a time (which marks them listed). Folders update
 * `scan`'s rule state as the walk reaches them (a folder comes before its files and subfolders).
 */
export async function* filesToRead(
  tree: AsyncIterable<TreeEntry>,
  scan: TreeScan,
  baseline: ScanBaseline | undefined,
  racyFrom: number,
  signal: AbortSignal,
): AsyncGenerator<TreeFile> {
  let pending: Array<{ file: TreeFile; ruleChanged: boolean }> = [];
  const decide = async function* (): AsyncGenerator<TreeFile> {
    if (!baseline || pending.length === 0) return;
    const batch = pending;
    pending = [];
    const staged = await baseline.staged.list(batch.map((p) => p.file.nativeId));
    for (const { file, ruleChanged } of batch) {
      if (baseline.failed.has(file.nativeId)) scan.foundFailed.add(file.nativeId);
      if (needsSync(baseline, file, staged.get(file.nativeId), ruleChanged)) yield { ...file, version: recordedVersion(file, racyFrom) };
    }
  };
  for await (const entry of tree) {
    throwIfAborted(signal);
    if (entry.kind === 'folder') {
      noteFolder(scan, baseline, entry);
      continue;
    }
    if (!baseline) {
      yield { ...entry, version: recordedVersion(entry, racyFrom) };
      continue;
    }
    pending.push({ file: entry, ruleChanged: scan.ruleChanged.get(entry.folder.path) === true });
    if (pending.length >= LOOKUP_BATCH) yield* decide();
  }
  yield* decide();
}

/** Records a folder's sidecars, and whether its rule may have changed since the baseline. */
export function noteFolder(scan: TreeScan, baseline: Pick<ScanBaseline, 'sidecars'> | undefined, folder: TreeFolder): void {
  for (const [key, hash] of folder.sidecars) scan.sidecars.set(key, hash);
  const parent = folder.path === '' ? undefined : path.posix.dirname(folder.path) === '.' ? '' : path.posix.dirname(folder.path);
  const own = !sameEntries(folder.sidecars, baseline?.sidecars.get(folder.path));
  // A folder with a sidecar of its own does not inherit: a change above it cannot reach it.
  const inherited = folder.sidecars.size === 0 && parent !== undefined && scan.ruleChanged.get(parent) === true;
  scan.ruleChanged.set(folder.path, own || inherited);
}

/**
 * Whether a file of an incremental run is read and yielded: when staging does not serve it at the
 * version walked (`staged`: its staged version, null when it has none, undefined when not staged),
 * it failed last time, lies under a folder whose rule may have changed, or is given to a principal
 * that appeared or disappeared.
 */
export function needsSync(
  baseline: Pick<ScanBaseline, 'failed' | 'changedPrincipals'>,
  file: TreeFile,
  staged: string | null | undefined,
  ruleChanged: boolean,
): boolean {
  return staged !== file.version || baseline.failed.has(file.nativeId) || ruleChanged || file.access.principals.some((p) => baseline.changedPrincipals.has(p));
}

/**
 * Staged files the walk did not list, in id order, then files that failed last time and are gone
 * (never staged). Losing more than the guard's share of a tree of at least its `minFiles` expires
 * the checkpoint instead (`root` names the tree). Call once the walk has listed everything.
 */
export async function* goneFiles(baseline: ScanBaseline, scan: TreeScan, root: string, signal: AbortSignal): AsyncGenerator<string> {
  const before = await baseline.staged.count();
  const gone = await baseline.staged.unlistedCount();
  if (before >= INCREMENTAL_DELETE_GUARD.minFiles && gone / before > INCREMENTAL_DELETE_GUARD.share) {
    throw new FullRunRequired(`${gone} of ${before} files disappeared from ${root} since the last run; a full sync decides (behind its mass-deletion guard)`);
  }
  const failedGone = new Set([...baseline.failed].filter((id) => !scan.foundFailed.has(id)));
  let after: string | undefined;
  for (;;) {
    throwIfAborted(signal);
    const page = await baseline.staged.unlisted(after, GONE_PAGE);
    for (const id of page) {
      failedGone.delete(id);
      yield id;
    }
    after = page.at(-1);
    if (page.length < GONE_PAGE) break;
  }
  yield* [...failedGone].sort(compareCodeUnits);
}

function groupByFolder(sidecars: Record<string, string>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [key, hash] of Object.entries(sidecars)) {
    const dir = path.posix.dirname(key);
    const folder = dir === '.' ? '' : dir;
    const map = out.get(folder) ?? new Map<string, string>();
    map.set(key, hash);
    out.set(folder, map);
  }
  return out;
}

function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string> | undefined): boolean {
  const other = b ?? new Map<string, string>();
  if (a.size !== other.size) return false;
  for (const [k, v] of a) if (other.get(k) !== v) return false;
  return true;
}
