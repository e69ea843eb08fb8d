import path from 'node:path';
import { throwIfAborted } from '../../lib/abort-error';
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

/** What a walk has seen so far; the next checkpoint is made of it. */
export interface TreeScan {
  /** Every content file's native id and version (`racy:` prefixed when modified too close to the scan to trust). */
  files: Map<string, string>;
  /** Each sidecar's NFC relative path and the SHA-256 of its bytes. */
  sidecars: Map<string, string>;
  /** Folders whose rule may differ from last time: own sidecars changed, or (without one) an ancestor's did. */
  ruleChanged: Map<string, boolean>;
  /** Files that could not be synced (retried by every incremental run). */
  failed: string[];
}

/** What an incremental walk compares with: the last run's checkpoint, and the principals that appeared or disappeared since. */
export interface ScanBaseline {
  files: Readonly<Record<string, string>>;
  failed: ReadonlySet<string>;
  /** The last run's sidecars, by folder (NFC relative path, '' for the root). */
  sidecars: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** `USER:id` / `GROUP:id` added to or removed from the directory. */
  changedPrincipals: ReadonlySet<string>;
}

export function newTreeScan(): TreeScan {
  return { files: new Map(), sidecars: new Map(), ruleChanged: new Map(), failed: [] };
}

export function scanBaseline(checkpoint: FilesystemCheckpoint, changedPrincipals: ReadonlySet<string>): ScanBaseline {
  return { files: checkpoint.files, failed: new Set(checkpoint.failed), sidecars: groupByFolder(checkpoint.sidecars), changedPrincipals };
}

/**
 * The walk's files that need reading, in walk order: every file on a full run (no baseline);
 * else those `needsSync` picks. Folders update `scan`'s rule state as the walk reaches them (a
 * folder comes before its files and subfolders); every file is recorded in `scan.files`.
 */
export async function* filesToRead(
  tree: AsyncIterable<TreeEntry>,
  scan: TreeScan,
  baseline: ScanBaseline | undefined,
  racyFrom: number,
  signal: AbortSignal,
): AsyncGenerator<TreeFile> {
  for await (const entry of tree) {
    throwIfAborted(signal);
    if (entry.kind === 'folder') {
      noteFolder(scan, baseline, entry);
      continue;
    }
    scan.files.set(entry.nativeId, entry.mtimeMs >= racyFrom ? `racy:${entry.version}` : entry.version);
    if (needsSync(scan, baseline, entry)) yield entry;
  }
}

/** Records a folder's sidecars, and whether its rule may have changed since the baseline. */
export function noteFolder(scan: TreeScan, baseline: ScanBaseline | undefined, folder: TreeFolder): void {
  for (const [key, hash] of folder.sidecars) scan.sidecars.set(key, hash);
  const parent = folder.path === '' ? undefined : path.posix.dirname(folder.path) === '.' ? '' : path.posix.dirname(folder.path);
  const own = !sameEntries(folder.sidecars, baseline?.sidecars.get(folder.path));
  // A folder with a sidecar of its own does not inherit: a change above it cannot reach it.
  const inherited = folder.sidecars.size === 0 && parent !== undefined && scan.ruleChanged.get(parent) === true;
  scan.ruleChanged.set(folder.path, own || inherited);
}

/**
 * Whether a file is read and yielded: always on a full run; on an incremental one when it is new,
 * has a new version, failed last time, lies under a folder whose rule may have changed, or is
 * given to a principal that appeared or disappeared.
 */
export function needsSync(scan: TreeScan, baseline: ScanBaseline | undefined, file: TreeFile): boolean {
  if (!baseline) return true;
  const before = Object.hasOwn(baseline.files, file.nativeId) ? baseline.files[file.nativeId] : undefined;
  return (
    before !== file.version ||
    baseline.failed.has(file.nativeId) ||
    scan.ruleChanged.get(file.folder.path) === true ||
    file.access.principals.some((p) => baseline.changedPrincipals.has(p))
  );
}

/**
 * Files of the baseline the walk did not find, in code-unit order. Losing more than the guard's
 * share of a tree of at least its `minFiles` expires the checkpoint instead (`root` names the tree).
 */
export function goneFiles(baseline: ScanBaseline, scan: TreeScan, root: string): string[] {
  const gone = Object.keys(baseline.files)
    .filter((id) => !scan.files.has(id))
    .sort(compareCodeUnits);
  const before = Object.keys(baseline.files).length;
  if (before >= INCREMENTAL_DELETE_GUARD.minFiles && gone.length / before > INCREMENTAL_DELETE_GUARD.share) {
    throw new FullRunRequired(
      `${gone.length} of ${before} files disappeared from ${root} since the last run; a full sync decides (behind its mass-deletion guard)`,
    );
  }
  return gone;
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
