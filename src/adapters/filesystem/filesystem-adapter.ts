import crypto from 'node:crypto';
import { closeSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { AccessOnlyAdapter, AdapterContext, FileRecord, IncrementalAdapter, LiveFile, StagedFiles, SyncEvent } from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { readAhead } from '../../lib/read-ahead';
import { FullRunRequired, SourceError } from '../source-error';
import { directoryEvents } from '../directory-events';
import { resolveFilesystemConfig, type FilesystemConfig, type FilesystemConfigInput } from './filesystem-config';
import {
  baseTitle,
  DIRECTORY_NAMES,
  DirectoryFileError,
  externalUrlOf,
  htmlTitle,
  isInsideRoot,
  parseDirectory,
  renderMarkdown,
  SidecarUnreadableError,
  stripBom,
  type Directory,
} from './filesystem-mapping';
import { filesystemWorkerEvents } from './filesystem-worker-events';
import { openWalkedFile, readWalkedFile, WalkedBinaryContent } from './filesystem-reads';
import { SkipReport, walkTree, type TreeFile } from './filesystem-tree';
import { UsabilityReport } from './filesystem-usability';
import { filesToRead, goneFiles, newTreeScan, scanBaseline } from './filesystem-scan';
import { filesystemCheckpointSchema, type FilesystemCheckpoint } from './filesystem-checkpoint';

export { filesystemCheckpointSchema, type FilesystemCheckpoint } from './filesystem-checkpoint';

/**
 * A file modified this close to the scan may change again within the same mtime tick without
 * its version changing (the "racy" case of git's index): it is re-read on the next incremental
 * run, which costs nothing served when the bytes are the same.
 */
const RACY_WINDOW_MS = 2_000;
/** Files read concurrently during a walk. */
const READ_AHEAD = 16;
/** HTML and Markdown are served inline from the database row: anything larger is refused. */
export const MAX_INLINE_BYTES = 16 * 1024 * 1024;

interface RunStart {
  realRoot: string;
  directory: Directory;
  directorySha256: string;
  /** Realpath of the directory file: left out of the walk when it lies inside the tree. */
  directoryRealPath: string;
}

/**
 * Syncs a folder tree: HTML and Markdown inline, PDF/DOCX/PPTX/TXT as streamed binaries
 * (re-read only when `mtimeMs:size` changes), access from `_access.yaml` sidecars, users and
 * groups from the directory file. Full runs walk everything; incremental runs yield what changed
 * since the checkpoint, with explicit deletes, comparing the walk with the staged files (their
 * versions, and which the walk did not list: `AdapterContext.staged`), so neither the checkpoint
 * nor the memory of a run grows with the tree: every file is staged with its version. Access problems fail only the files concerned; a
 * missing or malformed directory file stops the run. With `workerThread`, the same code runs on a
 * worker thread (filesystem-worker.ts), so walking, reading and rendering Markdown overlap with the
 * engine's decisions and writes instead of taking turns with them. Access-only runs take
 * `permissions` (the directory file) then `liveFiles` (a walk that opens no file), on this thread.
 */
export class FilesystemAdapter implements IncrementalAdapter<FilesystemCheckpoint>, AccessOnlyAdapter {
  readonly name: string;
  readonly checkpointSchema = filesystemCheckpointSchema;
  /** The start of the access-only run under way: `liveFiles` resolves sidecars with the directory `permissions` read. */
  private accessRun: RunStart | undefined;

  constructor(readonly config: FilesystemConfig) {
    this.name = config.sourceName;
  }

  /** Users, then groups, then every file in walk order, then a checkpoint. `resume` is ignored: a walk is cheap to repeat. */
  async *full(ctx: AdapterContext): AsyncIterable<SyncEvent> {
    if (this.config.workerThread) {
      yield* filesystemWorkerEvents(this.config, { mode: 'full' }, ctx);
      return;
    }
    const run = await this.start(ctx);
    yield* directoryEvents(ctx.signal, run.directory);
    yield* this.syncTree(ctx, run, undefined);
  }

  /**
   * Since `since`: the directory's users and groups when its file changed (with deletes for those
   * gone), files that are new, have a new version, are under a folder whose sidecar was added,
   * removed or changed, name a principal that appeared or disappeared, or failed last time; then
   * deletes for files gone, then a new checkpoint.
   */
  async *changes(ctx: AdapterContext, since: FilesystemCheckpoint): AsyncIterable<SyncEvent> {
    const staged = ctx.staged;
    if (!staged) throw new FullRunRequired('an incremental walk compares with the staged files, and none were given');
    if (this.config.workerThread) {
      yield* filesystemWorkerEvents(this.config, { mode: 'changes', since }, ctx);
      return;
    }
    const run = await this.start(ctx);
    const changedPrincipals = new Set<string>();
    if (run.directorySha256 !== since.directory.sha256) {
      yield* directoryEvents(ctx.signal, run.directory);
      for (const id of since.directory.users.filter((u) => !run.directory.userIds.has(u))) {
        throwIfAborted(ctx.signal);
        changedPrincipals.add(`USER:${id}`);
        yield { type: 'delete', kind: 'user', nativeId: id };
      }
      for (const id of since.directory.groups.filter((g) => !run.directory.groupIds.has(g))) {
        throwIfAborted(ctx.signal);
        changedPrincipals.add(`GROUP:${id}`);
        yield { type: 'delete', kind: 'group', nativeId: id };
      }
      const before = { users: new Set(since.directory.users), groups: new Set(since.directory.groups) };
      for (const id of run.directory.userIds) if (!before.users.has(id)) changedPrincipals.add(`USER:${id}`);
      for (const id of run.directory.groupIds) if (!before.groups.has(id)) changedPrincipals.add(`GROUP:${id}`);
    }
    yield* this.syncTree(ctx, run, { checkpoint: since, changedPrincipals, staged });
  }

  /**
   * The directory file's users and groups, for an access-only run, then deletes for those the
   * last stored checkpoint (`ctx.checkpoint`) lists that are gone from it; a sidecar still naming
   * one fails that file.
   */
  async *permissions(ctx: AdapterContext): AsyncIterable<SyncEvent> {
    const run = await this.start(ctx);
    this.accessRun = run;
    yield* directoryEvents(ctx.signal, run.directory);
    const since = filesystemCheckpointSchema.safeParse(ctx.checkpoint);
    if (!since.success) return;
    for (const nativeId of since.data.directory.users) if (!run.directory.userIds.has(nativeId)) yield { type: 'delete', kind: 'user', nativeId };
    for (const nativeId of since.data.directory.groups) if (!run.directory.groupIds.has(nativeId)) yield { type: 'delete', kind: 'group', nativeId };
  }

  /**
   * Every supported file with its access from the sidecars: a walk that stats and lists, and
   * opens no file. A file whose rule cannot be used (a sidecar that does not parse, names someone
   * the directory lacks, overrides a file not there) is listed as unresolved with what the rule
   * still grants (nobody for an unusable sidecar), so its staged access is narrowed as a content
   * run narrows it. One whose sidecar could not be read (an I/O error) is left out (it keeps its
   * staged access), and then the listing ends in a SourceError naming them, so the run is failed.
   */
  async *liveFiles(ctx: AdapterContext): AsyncIterable<LiveFile> {
    const run = this.accessRun ?? (await this.start(ctx));
    const unreadable: Error[] = [];
    const tree = this.walk(run, ctx, new SkipReport());
    for await (const entry of tree) {
      throwIfAborted(ctx.signal);
      if (entry.kind !== 'file') continue;
      const { access } = entry;
      if (access.ok) yield { nativeId: entry.nativeId, access: access.access };
      else if (access.error instanceof SidecarUnreadableError) unreadable.push(access.error);
      else yield { nativeId: entry.nativeId, unresolved: access.error, accessAtMost: access.accessAtMost };
    }
    const [first] = unreadable;
    if (first) throw new SourceError(`${unreadable.length} file(s) kept their staged access, their sidecar unreadable: ${first.message}`, { cause: first });
  }

  /** The run's walk of the tree (the directory file left out), skips reported to `report`. */
  private walk(run: RunStart, ctx: AdapterContext, report: SkipReport): ReturnType<typeof walkTree> {
    return walkTree({
      root: this.config.root,
      realRoot: run.realRoot,
      directory: run.directory,
      signal: ctx.signal,
      logger: ctx.logger,
      report,
      excludeRealPath: run.directoryRealPath,
    });
  }

  private async start(ctx: AdapterContext): Promise<RunStart> {
    throwIfAborted(ctx.signal);
    const root = this.config.root;
    let realRoot: string;
    try {
      realRoot = await fs.realpath(root);
      if (!(await fs.stat(realRoot)).isDirectory()) throw new Error('not a folder');
      await fs.access(realRoot, fs.constants.R_OK | fs.constants.X_OK);
    } catch (err) {
      throw new SourceError(`FILESYSTEM_ROOT ${root}: cannot be read as a folder (${(err as Error).message})`, { cause: err });
    }
    const { file, real } = await this.locateDirectoryFile(realRoot);
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(real, { signal: ctx.signal });
    } catch (err) {
      throwIfAborted(ctx.signal);
      throw new DirectoryFileError(`${file}: cannot be read: ${(err as Error).message}`, { cause: err });
    }
    const directory = parseDirectory(stripBom(bytes.toString('utf8')), file);
    return { realRoot, directory, directorySha256: crypto.createHash('sha256').update(bytes).digest('hex'), directoryRealPath: real };
  }

  /** The configured directory file, else exactly one of `_directory.yaml` / `.json` at the root. */
  private async locateDirectoryFile(realRoot: string): Promise<{ file: string; real: string }> {
    const configured = this.config.directoryFile;
    if (configured !== undefined) {
      try {
        return { file: configured, real: await fs.realpath(configured) };
      } catch (err) {
        throw new DirectoryFileError(`${configured} (FILESYSTEM_DIRECTORY_FILE): cannot be read: ${(err as Error).message}`, { cause: err });
      }
    }
    const present: Array<{ file: string; real: string }> = [];
    for (const name of DIRECTORY_NAMES) {
      const file = path.join(this.config.root, name);
      try {
        await fs.lstat(file);
      } catch {
        continue;
      }
      let real: string;
      try {
        real = await fs.realpath(file);
      } catch (err) {
        throw new DirectoryFileError(`${file}: cannot be read: ${(err as Error).message}`, { cause: err });
      }
      // The default location is inside the tree, so the tree's rule applies: no link out of it.
      if (!isInsideRoot(realRoot, real)) throw new DirectoryFileError(`${file}: is a symbolic link out of the root (not followed)`);
      present.push({ file, real });
    }
    const [only, second] = present;
    if (!only)
      throw new DirectoryFileError(
        `${path.join(this.config.root, '_directory.yaml')}: is missing (list the users and groups there, or set FILESYSTEM_DIRECTORY_FILE)`,
      );
    if (second) throw new DirectoryFileError(`${path.join(this.config.root, '_directory.yaml')}: exists as both .yaml and .json; keep one`);
    return only;
  }

  /**
   * Walks the tree, reads the files a full run needs (every one) or an incremental run needs
   * (see `needsSync`) a few at a time, yields their events in walk order, then (incremental)
   * deletes for files gone, then the checkpoint.
   */
  private async *syncTree(
    ctx: AdapterContext,
    run: RunStart,
    incremental: { checkpoint: FilesystemCheckpoint; changedPrincipals: ReadonlySet<string>; staged: StagedFiles } | undefined,
  ): AsyncGenerator<SyncEvent> {
    const scannedAt = ctx.now().toISOString();
    const racyFrom = Date.now() - RACY_WINDOW_MS;
    const baseline = incremental && scanBaseline(incremental.checkpoint, incremental.changedPrincipals, incremental.staged);
    const scan = newTreeScan();
    const report = new SkipReport();
    const usability = new UsabilityReport();
    const tree = this.walk(run, ctx, report);
    // Reads overlap (file I/O waits, it does not compute); events still come out in walk order.
    const read = readAhead(filesToRead(usability.observe(tree), scan, baseline, racyFrom, ctx.signal), READ_AHEAD, async (entry) => ({
      entry,
      event: await this.fileEvent(ctx, run, entry),
    }));
    for await (const { entry, event } of read) {
      throwIfAborted(ctx.signal);
      if (event.type === 'failure') scan.failed.push(entry.nativeId);
      yield event;
    }

    const summary = report.summary();
    ctx.logger.info(summary, summary.skipped > 0 ? 'filesystem: skipped files of unsupported types' : 'filesystem: tree scanned');
    usability.log(ctx.logger, this.config.baseUrl);

    if (baseline) {
      for await (const nativeId of goneFiles(baseline, scan, this.config.root, ctx.signal)) yield { type: 'delete', kind: 'file', nativeId };
    }

    const checkpoint: FilesystemCheckpoint = {
      scannedAt,
      sidecars: Object.fromEntries(scan.sidecars),
      failed: scan.failed,
      directory: {
        sha256: run.directorySha256,
        users: run.directory.users.map((u) => u.nativeId),
        groups: run.directory.groups.map((g) => g.nativeId),
      },
    };
    yield { type: 'checkpoint', checkpoint };
  }

  /** The file event of a walked file, or a failure event for it (the run goes on). */
  private async fileEvent(ctx: AdapterContext, run: RunStart, entry: TreeFile): Promise<SyncEvent> {
    const failure = (error: Error): SyncEvent => ({ type: 'failure', kind: 'file', nativeId: entry.nativeId, error });
    if (!entry.access.ok)
      return { type: 'failure', kind: 'file', nativeId: entry.nativeId, error: entry.access.error, accessAtMost: entry.access.accessAtMost };
    const record: Omit<FileRecord, 'name' | 'content'> = {
      nativeId: entry.nativeId,
      externalUrl: externalUrlOf(this.config.baseUrl, entry.nativeId, entry.absolutePath),
      mimeType: entry.mimeType,
      access: entry.access.access,
      parent: { nativeId: entry.folder.path || '/', name: entry.folder.name, path: `/${entry.folder.path}` },
    };
    const fallbackTitle = baseTitle(entry.fileName);
    if (entry.contentKind === 'binary') {
      try {
        // Opened now so an unreadable file becomes a failure event, retried by the next run
        // (an error while the engine reads the bytes would not be).
        closeSync(openWalkedFile(run.realRoot, entry).fd);
      } catch (err) {
        return failure(err as Error);
      }
      return {
        type: 'file',
        file: {
          ...record,
          name: fallbackTitle,
          content: new WalkedBinaryContent(run.realRoot, { absolutePath: entry.absolutePath, identity: entry.identity }, entry.version),
        },
      };
    }
    if (entry.size > MAX_INLINE_BYTES) {
      return failure(new SourceError(`${entry.absolutePath}: ${entry.size} bytes is too large to serve inline (at most ${MAX_INLINE_BYTES})`));
    }
    try {
      const text = stripBom(await readWalkedFile(run.realRoot, entry, ctx.signal));
      const html = entry.contentKind === 'markdown' ? renderMarkdown(text, fallbackTitle) : text;
      return { type: 'file', file: { ...record, name: htmlTitle(html) ?? fallbackTitle, content: { kind: 'html', html, version: entry.version } } };
    } catch (err) {
      throwIfAborted(ctx.signal);
      return failure(err as Error);
    }
  }
}

/** Builds the adapter from settings (validated; throws an Error naming the setting). No I/O until a run starts. */
export function createFilesystemAdapter(config: FilesystemConfigInput | FilesystemConfig): FilesystemAdapter {
  return new FilesystemAdapter(resolveFilesystemConfig(config as FilesystemConfigInput));
}
