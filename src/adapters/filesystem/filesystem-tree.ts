import crypto from 'node:crypto';
import { promises as fs, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logging/create-logger';
import { throwIfAborted } from '../../lib/abort-error';
import {
  AccessRuleError,
  checkOverrides,
  compareCodeUnits,
  DIRECTORY_NAMES,
  extensionOf,
  fileTypeOf,
  fileVersion,
  inheritedRule,
  isInsideRoot,
  isReservedName,
  joinRelative,
  NO_SIDECAR,
  parseSidecar,
  resolveFileAccess,
  SIDECAR_NAMES,
  SidecarUnreadableError,
  toNativeId,
  type Directory,
  type FileAccess,
  type FileKind,
  type FolderRule,
} from './filesystem-mapping';
import type { SupportedMimeType } from '../adapter';

/** A folder, reported before its files: the sidecars in it, by NFC relative path, with a hash of their bytes. */
export interface TreeFolder {
  kind: 'folder';
  /** NFC relative path; '' is the root. */
  path: string;
  sidecars: ReadonlyMap<string, string>;
}

export interface TreeFile {
  kind: 'file';
  nativeId: string;
  /** Relative path exactly as on disk, `/`-separated (may differ from the NFC native id). */
  relativePath: string;
  /** The path as walked (under the root as configured); symlinks in it are resolved when read. */
  absolutePath: string;
  /** NFC file name. */
  fileName: string;
  folder: { path: string; name: string };
  mimeType: SupportedMimeType;
  contentKind: FileKind;
  size: number;
  mtimeMs: number;
  version: string;
  /** Device and inode of the file the walk found (a link's target): a read checks it opened this very file. */
  identity: { dev: number; ino: number };
  access: FileAccess;
}

export type TreeEntry = TreeFolder | TreeFile;

export type SkipReason =
  | 'unsupported type'
  | 'reserved name'
  | 'symbolic link out of the root'
  | 'broken symbolic link'
  | 'symbolic link cycle'
  | 'name clashes after Unicode normalisation'
  | 'not a regular file or folder'
  | 'unreadable';

export interface SkippedEntry {
  relativePath: string;
  reason: SkipReason;
  /** For unsupported files: the extension, as counted. */
  extension?: string;
}

/** What a walk left out, counted for the end-of-run log line (counts only: nothing kept per file). */
export class SkipReport {
  private skipped = 0;
  private readonly byExtension: Record<string, number> = {};
  private readonly ignored: Partial<Record<SkipReason, number>> = {};

  add(entry: SkippedEntry): void {
    if (entry.reason === 'unsupported type') {
      this.skipped++;
      const ext = entry.extension ?? '(none)';
      this.byExtension[ext] = (this.byExtension[ext] ?? 0) + 1;
    } else {
      this.ignored[entry.reason] = (this.ignored[entry.reason] ?? 0) + 1;
    }
  }

  summary(): { skipped: number; byExtension: Record<string, number>; ignored: Partial<Record<SkipReason, number>> } {
    return { skipped: this.skipped, byExtension: { ...this.byExtension }, ignored: { ...this.ignored } };
  }
}

export interface WalkOptions {
  /** The root as configured (for messages and walked paths). */
  root: string;
  /** Its realpath: nothing outside it is read. */
  realRoot: string;
  directory: Pick<Directory, 'userIds' | 'groupIds'>;
  signal: AbortSignal;
  logger: Logger;
  report: SkipReport;
  /** Realpath of the directory file when it lives inside the tree under a non-reserved name. */
  excludeRealPath?: string;
}

interface FolderAt {
  /** Relative path as on disk ('' for the root). */
  rel: string;
  /** NFC relative path. */
  nativePath: string;
  name: string;
  real: string;
}

/**
 * Walks the tree depth-first in code-unit order of NFC names (files of a folder before its
 * subfolders), yielding each folder (with its sidecars) and then its supported files with their
 * resolved access. Symbolic links are followed only when they resolve inside the root; a link
 * back to a folder being walked is a cycle and skipped. Nothing is buffered beyond one folder's
 * listing, and no file content is read here.
 */
export async function* walkTree(options: WalkOptions): AsyncGenerator<TreeEntry> {
  const root: FolderAt = { rel: '', nativePath: '', name: path.basename(options.root) || '/', real: options.realRoot };
  yield* walkFolder(options, root, NO_SIDECAR, new Set([options.realRoot]));
}

async function* walkFolder(o: WalkOptions, folder: FolderAt, inherited: FolderRule, ancestry: ReadonlySet<string>): AsyncGenerator<TreeEntry> {
  throwIfAborted(o.signal);
  const folderAbs = folder.rel === '' ? o.root : path.join(o.root, folder.rel);
  const entries = await listFolder(o, folder, folderAbs);
  if (!entries) return;

  const { rule: ownRule, sidecars } = await readFolderRule(o, folder, entries);
  yield { kind: 'folder', path: folder.nativePath, sidecars };
  const { files, fileNames, subfolders } = sortEntries(o, folder, entries, ancestry);
  const rule = effectiveRule(ownRule, inherited, fileNames);
  for (const f of files) yield treeFile(o, folder, folderAbs, f, rule);

  const below = inheritedRule(rule);
  for (const sub of subfolders) {
    yield* walkFolder(
      o,
      { rel: joinRelative(folder.rel, sub.raw), nativePath: joinRelative(folder.nativePath, sub.name), name: sub.name, real: sub.real },
      below,
      new Set([...ancestry, sub.real]),
    );
  }
}

interface ListedName {
  /** The name as on disk. */
  raw: string;
  /** NFC. */
  name: string;
}

/**
 * The folder's names in code-unit order of their NFC form (then of the raw name), or undefined
 * when it cannot be listed. The root itself was checked when the run started; a subfolder that
 * cannot be listed is left out (its files are treated as gone) rather than stopping every later run.
 */
async function listFolder(o: WalkOptions, folder: FolderAt, folderAbs: string): Promise<ListedName[] | undefined> {
  let names: string[];
  try {
    names = await fs.readdir(folderAbs);
  } catch (err) {
    o.logger.warn({ folder: folderAbs, err }, 'cannot list a folder; leaving it out');
    o.report.add({ relativePath: folder.rel, reason: 'unreadable' });
    return undefined;
  }
  return names.map((raw) => ({ raw, name: raw.normalize('NFC') })).sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.raw, b.raw));
}

interface WalkedFile extends ListedName {
  stats: Stats;
  mimeType: SupportedMimeType;
  contentKind: FileKind;
}

/** A folder's entries sorted out: files of a supported type, the names of every regular file (for sidecar overrides), subfolders to walk. */
interface FolderEntries {
  files: WalkedFile[];
  fileNames: Set<string>;
  subfolders: Array<ListedName & { real: string }>;
}

/**
 * Leaves out sidecars, the directory file (at the root), reserved names, links that cannot be
 * followed, names that clash after normalisation (the first is kept), link cycles, special files
 * and unsupported types, each reported; sorts the rest into files and subfolders.
 */
function sortEntries(o: WalkOptions, folder: FolderAt, entries: readonly ListedName[], ancestry: ReadonlySet<string>): FolderEntries {
  const seenNames = new Set<string>();
  const out: FolderEntries = { files: [], fileNames: new Set(), subfolders: [] };
  for (const { raw, name } of entries) {
    throwIfAborted(o.signal);
    const rel = joinRelative(folder.rel, raw);
    if ((SIDECAR_NAMES as readonly string[]).includes(name) || (folder.rel === '' && (DIRECTORY_NAMES as readonly string[]).includes(name))) continue;
    if (isReservedName(name)) {
      o.report.add({ relativePath: rel, reason: 'reserved name' });
      continue;
    }
    const resolved = resolveEntry(o, folder, raw);
    if ('skip' in resolved) {
      o.report.add({ relativePath: rel, reason: resolved.skip });
      continue;
    }
    if (resolved.real === o.excludeRealPath) continue;
    if (seenNames.has(name)) {
      // Two names that differ only in normalisation would share one native id: keep the first.
      o.report.add({ relativePath: rel, reason: 'name clashes after Unicode normalisation' });
      continue;
    }
    seenNames.add(name);
    if (resolved.stats.isDirectory()) {
      if (ancestry.has(resolved.real)) o.report.add({ relativePath: rel, reason: 'symbolic link cycle' });
      else out.subfolders.push({ raw, name, real: resolved.real });
    } else if (!resolved.stats.isFile()) {
      o.report.add({ relativePath: rel, reason: 'not a regular file or folder' });
    } else {
      out.fileNames.add(name);
      const type = fileTypeOf(name);
      if (!type) o.report.add({ relativePath: rel, reason: 'unsupported type', extension: extensionOf(name) });
      else out.files.push({ raw, name, stats: resolved.stats, mimeType: type.mimeType, contentKind: type.kind });
    }
  }
  return out;
}

/**
 * The rule for the folder's files: its own (when it has a sidecar) else the inherited one. Own
 * overrides that name a file not in the folder break the rule (never a wider one).
 */
function effectiveRule(ownRule: FolderRule | undefined, inherited: FolderRule, fileNames: ReadonlySet<string>): FolderRule {
  if (ownRule?.kind === 'rule' && ownRule.sidecar !== undefined) {
    try {
      checkOverrides(ownRule.sidecarRule, ownRule.sidecar, fileNames);
    } catch (err) {
      return { kind: 'broken', sidecar: ownRule.sidecar, error: err as AccessRuleError };
    }
  }
  return ownRule ?? inherited;
}

function treeFile(o: WalkOptions, folder: FolderAt, folderAbs: string, f: WalkedFile, rule: FolderRule): TreeFile {
  const relativePath = joinRelative(folder.rel, f.raw);
  return {
    kind: 'file',
    nativeId: toNativeId(relativePath),
    relativePath,
    absolutePath: path.join(folderAbs, f.raw),
    fileName: f.name,
    folder: { path: folder.nativePath, name: folder.name },
    mimeType: f.mimeType,
    contentKind: f.contentKind,
    size: f.stats.size,
    mtimeMs: f.stats.mtimeMs,
    version: fileVersion(f.stats),
    identity: { dev: f.stats.dev, ino: f.stats.ino },
    access: resolveFileAccess(rule, f.name, o.directory),
  };
}

/**
 * lstat, and for a symbolic link: its target, only when it resolves inside the root. Synchronous:
 * a metadata call on a local disk takes microseconds, less than a thread-pool round trip, and the
 * walk looks at every entry one after another anyway.
 */
function resolveEntry(o: WalkOptions, folder: FolderAt, raw: string): { stats: Stats; real: string } | { skip: SkipReason } {
  const abs = path.join(folder.rel === '' ? o.root : path.join(o.root, folder.rel), raw);
  let stats: Stats;
  try {
    stats = lstatSync(abs);
  } catch {
    return { skip: 'unreadable' }; // vanished between listing and looking
  }
  if (!stats.isSymbolicLink()) return { stats, real: path.join(folder.real, raw) };
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch {
    return { skip: 'broken symbolic link' };
  }
  if (!isInsideRoot(o.realRoot, real)) return { skip: 'symbolic link out of the root' };
  try {
    return { stats: statSync(real), real };
  } catch {
    return { skip: 'broken symbolic link' };
  }
}

/**
 * The folder's own rule, when it has a sidecar (undefined: inherit), and the sidecars' hashes for
 * the checkpoint. A sidecar that cannot be used gives a `broken` rule, never a wider one.
 */
async function readFolderRule(
  o: WalkOptions,
  folder: FolderAt,
  entries: ReadonlyArray<{ raw: string; name: string }>,
): Promise<{ rule: FolderRule | undefined; sidecars: Map<string, string> }> {
  const present = entries.filter((e) => (SIDECAR_NAMES as readonly string[]).includes(e.name));
  const sidecars = new Map<string, string>();
  if (present.length === 0) return { rule: undefined, sidecars };
  const read = await Promise.all(
    present.map(async (e) => {
      const display = path.join(o.root, folder.rel, e.raw);
      const key = joinRelative(folder.nativePath, e.name);
      const text = await readControlFile(o, display);
      sidecars.set(key, 'text' in text ? crypto.createHash('sha256').update(text.text).digest('hex') : `unreadable: ${text.error}`);
      return { display, text };
    }),
  );
  const first = read[0];
  if (!first) return { rule: undefined, sidecars };
  if (read.length > 1) {
    return {
      rule: {
        kind: 'broken',
        sidecar: first.display,
        error: new AccessRuleError(`${path.join(o.root, folder.rel)}: has both _access.yaml and _access.json; keep one`),
      },
      sidecars,
    };
  }
  if (!('text' in first.text)) {
    const error = new (first.text.io ? SidecarUnreadableError : AccessRuleError)(`${first.display}: ${first.text.error}`);
    return { rule: { kind: 'broken', sidecar: first.display, error }, sidecars };
  }
  try {
    return { rule: { kind: 'rule', sidecar: first.display, sidecarRule: parseSidecar(first.text.text, first.display) }, sidecars };
  } catch (err) {
    return { rule: { kind: 'broken', sidecar: first.display, error: err as AccessRuleError }, sidecars };
  }
}

/** Reads a sidecar: a regular file, or a link that resolves to one inside the root (`io`: the read failed). */
async function readControlFile(o: WalkOptions, file: string): Promise<{ text: string } | { error: string; io?: true }> {
  try {
    const real = await fs.realpath(file);
    if (!isInsideRoot(o.realRoot, real)) return { error: 'is a symbolic link out of the root (not followed)' };
    if (!(await fs.stat(real)).isFile()) return { error: 'must be a regular file' };
    return { text: await fs.readFile(real, { encoding: 'utf8', signal: o.signal }) };
  } catch (err) {
    throwIfAborted(o.signal);
    return { error: `cannot be read: ${(err as Error).message}`, io: true };
  }
}
