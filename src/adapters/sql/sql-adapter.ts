import type {
  AccessOnlyAdapter,
  AccessReconcilingAdapter,
  Adapter,
  AdapterContext,
  AttributeValue,
  LazyHtml,
  LiveFile,
  SettleEvent,
  SettleRequest,
  SyncEvent,
} from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { FullRunRequired } from '../source-error';
import { sqlCheckpointSchema, type SqlCheckpoint } from './sql-checkpoint';
import type { SqlAdapterConfig } from './sql-config';
import { logQueries, openDatabase, sourceErrorOf } from './sql-connection';
import { directoryAndProblemEvents, goneIdentities, readDirectory } from './sql-directory';
import type { RowSource } from './sql-mapping-schema';
import { POSITION_COLUMN, scalarOf, SqlReader } from './sql-reader';
import { SqlContentLoader, type DocumentKey } from './sql-content-loader';
import { contentFingerprint, contentVersion, listedColumns } from './sql-lazy-content';
import { accessByDocument, attributesByOwner, documentPage, documentRecord, SqlRowError, UnresolvedAccessError, type Directory } from './sql-records';
import { idText, pick, rowAttributes, type Row } from './sql-values';
import { collapseChanges, compareScalars, startBound, type Bound, type Position, type Scalar } from './sql-watermark';

/** A keyset over `(order, id)` of some rows: documents by modified time, or the change table by sequence. */
interface Keyset {
  source: RowSource;
  order: string;
  id: string;
  overlap: number | undefined;
}

/**
 * Reads documents, users, role assignments and groups from a relational database, as a mapping
 * file describes them (docs/sql-adapter.md). Full runs read documents a page at a time in id
 * order (resumable after a page). Incremental runs read the rows past the last position, by the
 * documents' modified-time column or by a change table, each up to where the table stood when
 * the run began; deletions come from the change table's delete rows, and in either mode from
 * access reconciliation: `liveFiles` lists every document id with its access, so a document
 * gone from the table is tombstoned and an access list changed without a change is rewritten.
 * With a modified-time column, documents are read without their content columns and each page
 * lazily (`LazyHtml`): read by id, a batch in one query, only when the engine finds its version
 * moved, so a full run (a changed access policy) reads no body that did not change. Access-only
 * runs take `permissions` (the directory) then `liveFiles` (the listing): no body is read.
 */
export class SqlAdapter implements AccessReconcilingAdapter<SqlCheckpoint>, AccessOnlyAdapter {
  readonly name: string;
  readonly checkpointSchema = sqlCheckpointSchema;
  /** The directory of the last run: the listing and settling after `changes()` use it. */
  private directory: Directory | undefined;
  /** The columns documents are listed with, their content read lazily; undefined: read with the row. */
  private readonly listed: string[] | undefined;
  private readonly fingerprint: string;

  constructor(readonly config: SqlAdapterConfig) {
    this.name = config.sourceName;
    this.listed = listedColumns(config.mapping.mapping.documents);
    this.fingerprint = contentFingerprint(config.mapping.mapping.documents, config.mapping.template);
  }

  private get mapping() {
    return this.config.mapping.mapping;
  }

  /** The rows checkpoints track, or undefined for full runs only. */
  private keyset(): Keyset | undefined {
    const inc = this.config.mapping.incremental;
    const docs = this.mapping.documents;
    if (inc.mode === 'modified' && docs.modified !== undefined) return { source: docs, order: docs.modified, id: docs.id, overlap: inc.overlap };
    if (inc.mode === 'changes') return { source: inc, order: inc.seq, id: inc.id, overlap: inc.overlap };
    return undefined;
  }

  async *full(ctx: AdapterContext, resume?: unknown): AsyncIterable<SyncEvent> {
    yield* this.session(ctx, (reader, contents) => this.fullRun(ctx, reader, contents, resume));
  }

  async *changes(ctx: AdapterContext, since: SqlCheckpoint): AsyncIterable<SyncEvent> {
    if (since.progress) throw new FullRunRequired('the stored checkpoint belongs to an unfinished full run');
    if (since.mapping !== this.config.mapping.fingerprint)
      throw new FullRunRequired('the mapping file changed since the last run; a full run renders every document again');
    const keyset = this.keyset();
    if (!keyset || since.mode !== this.config.mapping.incremental.mode)
      throw new FullRunRequired(`the checkpoint is of incremental mode ${since.mode}, the mapping says ${this.config.mapping.incremental.mode}`);
    yield* this.session(ctx, (reader, contents) => this.incrementalRun(ctx, reader, contents, keyset, since));
  }

  /**
   * Users and groups as every run reads them, for an access-only run: the `liveFiles` after it
   * resolves access with this directory. Users and groups the last stored checkpoint lists
   * (`ctx.checkpoint`) that are gone are deleted; without one, their grants and memberships
   * still drop out of what is listed.
   */
  async *permissions(ctx: AdapterContext): AsyncIterable<SyncEvent> {
    yield* this.session(ctx, (reader) => this.directoryRun(ctx, reader));
  }

  async *liveFiles(ctx: AdapterContext): AsyncIterable<LiveFile> {
    yield* this.session(ctx, (reader) => this.listing(ctx, reader));
  }

  async *settle(ctx: AdapterContext, request: SettleRequest): AsyncIterable<SettleEvent> {
    yield* this.session(ctx, (reader, contents) => this.settleRun(ctx, reader, contents, request));
  }

  /**
   * Opens the database for one call and closes it after (once the content loads under way on it
   * are done); database errors become SourceErrors (the URL's password masked).
   */
  private async *session<T>(ctx: AdapterContext, body: (reader: SqlReader, contents: SqlContentLoader) => AsyncIterable<T>): AsyncGenerator<T> {
    const { connection } = this.config;
    const reader = this.openReader(ctx);
    const wrap = (error: unknown) => (ctx.signal.aborted ? error : sourceErrorOf(error, connection));
    const lease = () => {
      const leased = this.openReader(ctx);
      return { reader: leased, release: () => leased.db.destroy() };
    };
    const contents = new SqlContentLoader(reader, this.mapping.documents, lease, wrap);
    try {
      yield* body(reader, contents);
    } catch (error) {
      throw wrap(error);
    } finally {
      await contents.close();
      await reader.db.destroy();
    }
  }

  private openReader(ctx: AdapterContext): SqlReader {
    const { connection } = this.config;
    const db = openDatabase(connection);
    logQueries(db, ctx, this.name);
    return new SqlReader(db, connection.dialect);
  }

  private checkpoint(position: Position | null, dir: Directory, progress?: { after: Scalar | null }): SyncEvent {
    const checkpoint: SqlCheckpoint = {
      version: 1,
      mapping: this.config.mapping.fingerprint,
      mode: this.config.mapping.incremental.mode,
      position: position ? { ...position } : null,
      users: dir.users.map((u) => u.nativeId).sort(),
      groups: dir.groups.map((g) => g.nativeId).sort(),
      ...(progress ? { progress: { ...progress } } : {}),
    };
    return { type: 'checkpoint', checkpoint };
  }

  /**
   * Users, groups, then documents by id a page at a time, a checkpoint after each page. The
   * position incremental runs continue from is taken before any document is read, so what
   * changes during the crawl is read again by the next run; a resumed run keeps the interrupted
   * one's position and continues after its last page.
   */
  private async *fullRun(ctx: AdapterContext, reader: SqlReader, contents: SqlContentLoader, resume: unknown): AsyncGenerator<SyncEvent> {
    const parsed = resume === undefined ? undefined : sqlCheckpointSchema.safeParse(resume);
    const prior = parsed?.success && parsed.data.progress && parsed.data.mapping === this.config.mapping.fingerprint ? parsed.data : undefined;
    const dir = await readDirectory(reader, this.mapping);
    this.directory = dir;
    const keyset = this.keyset();
    const position = prior ? prior.position : keyset ? ((await reader.lastPosition(keyset.source, keyset.order, keyset.id)) ?? null) : null;
    yield* directoryAndProblemEvents(ctx, dir);
    let after = prior?.progress?.after ?? null;
    if (prior) ctx.logger.info({ source: this.name, after }, 'sql: resuming a full sync');
    yield this.checkpoint(position, dir, { after });
    const docs = this.mapping.documents;
    for (;;) {
      throwIfAborted(ctx.signal);
      const rows = await reader.pageById(docs, docs.id, after, this.config.pageSize, this.listed);
      yield* this.documentEvents(ctx, reader, contents, rows, dir);
      const last = rows[rows.length - 1];
      if (last === undefined) break;
      after = scalarOf(pick(last, docs.id));
      if (rows.length < this.config.pageSize) break;
      yield this.checkpoint(position, dir, { after });
    }
    yield this.checkpoint(position, dir);
  }

  /** The directory, then deletes for the users and groups the last stored checkpoint lists that are gone. */
  private async *directoryRun(ctx: AdapterContext, reader: SqlReader): AsyncGenerator<SyncEvent> {
    const dir = await readDirectory(reader, this.mapping);
    this.directory = dir;
    yield* directoryAndProblemEvents(ctx, dir);
    const since = sqlCheckpointSchema.safeParse(ctx.checkpoint);
    if (since.success) yield* goneIdentities(dir, since.data);
  }

  /** The directory again (deletes for users and groups gone), then the rows past the checkpoint's position, then the new checkpoint. */
  private async *incrementalRun(
    ctx: AdapterContext,
    reader: SqlReader,
    contents: SqlContentLoader,
    keyset: Keyset,
    since: SqlCheckpoint,
  ): AsyncGenerator<SyncEvent> {
    const dir = await readDirectory(reader, this.mapping);
    this.directory = dir;
    yield* directoryAndProblemEvents(ctx, dir);
    yield* goneIdentities(dir, since);

    const end = await reader.lastPosition(keyset.source, keyset.order, keyset.id);
    if (end && since.position && since.mode === 'changes' && compareScalars(end.value, since.position.value) < 0) {
      // A change table whose last sequence is behind the checkpoint was emptied and restarted: its new rows would never be read.
      throw new FullRunRequired(
        `the change table's last sequence (${String(end.value)}) is behind the checkpoint's (${String(since.position.value)}): it was reset`,
      );
    }
    let position = since.position;
    let bound: Bound | undefined = startBound(since.position, keyset.overlap);
    while (end) {
      throwIfAborted(ctx.signal);
      const changes = this.config.mapping.incremental.mode === 'changes';
      const columns = changes ? undefined : this.listed;
      const rows = await reader.ordered({
        source: keyset.source,
        order: keyset.order,
        id: keyset.id,
        after: bound,
        upTo: end,
        limit: this.config.pageSize,
        ...(columns ? { columns } : {}),
      });
      if (changes) yield* this.changeRowEvents(ctx, reader, contents, rows, dir);
      else yield* this.documentEvents(ctx, reader, contents, rows, dir);
      const last = rows[rows.length - 1];
      if (last === undefined) break;
      position = { value: scalarOf(last[POSITION_COLUMN]), id: scalarOf(pick(last, keyset.id)) };
      bound = position;
      if (rows.length < this.config.pageSize) break;
      yield this.checkpoint(position, dir);
    }
    yield this.checkpoint(position, dir);
  }

  /** A page of the change table: per document its last change; deletes as deletes, the rest read by id (a row gone since is a delete too). */
  private async *changeRowEvents(
    ctx: AdapterContext,
    reader: SqlReader,
    contents: SqlContentLoader,
    rows: readonly Row[],
    dir: Directory,
  ): AsyncGenerator<SyncEvent> {
    const inc = this.config.mapping.incremental;
    if (inc.mode !== 'changes') return;
    const deleteOps = new Set(inc.deleteOps.map((op) => op.toLowerCase()));
    const changes = rows.flatMap((row) => {
      const id = idText(pick(row, inc.id));
      return id === undefined
        ? []
        : [
            {
              id,
              deleted: deleteOps.has(
                String(pick(row, inc.op) ?? '')
                  .trim()
                  .toLowerCase(),
              ),
            },
          ];
    });
    const { upserts, deletes } = collapseChanges(changes);
    yield* this.byIdEvents(ctx, reader, contents, upserts, dir);
    for (const nativeId of deletes) yield { type: 'delete', kind: 'file', nativeId };
  }

  /** The documents with these ids as files; those no longer in the table as deletes. */
  private async *byIdEvents(
    ctx: AdapterContext,
    reader: SqlReader,
    contents: SqlContentLoader,
    ids: readonly string[],
    dir: Directory,
  ): AsyncGenerator<SyncEvent> {
    if (ids.length === 0) return;
    const docs = this.mapping.documents;
    const rows = await reader.byIds(docs, docs.id, ids, this.listed);
    const found = new Set(rows.map((r) => idText(pick(r, docs.id))));
    yield* this.documentEvents(ctx, reader, contents, rows, dir);
    for (const nativeId of ids) if (!found.has(nativeId)) yield { type: 'delete', kind: 'file', nativeId };
  }

  /**
   * Document rows as files, with their access rows read in one query; a row that cannot be mapped
   * is a failure. Rows listed without their content columns get pages loaded lazily.
   */
  private async *documentEvents(
    ctx: AdapterContext,
    reader: SqlReader,
    contents: SqlContentLoader,
    rows: readonly Row[],
    dir: Directory,
  ): AsyncGenerator<SyncEvent> {
    if (rows.length === 0) return;
    const docs = this.mapping.documents;
    const access = await this.accessOf(reader, rows, dir);
    const extra = await this.attributeRowsOf(reader, rows);
    const { template } = this.config.mapping;
    for (const raw of rows) {
      throwIfAborted(ctx.signal);
      const { [POSITION_COLUMN]: _position, ...row } = raw;
      const nativeId = idText(pick(row, docs.id));
      try {
        const entries = access?.get(nativeId ?? '') ?? [];
        if (entries instanceof SqlRowError) throw entries;
        const attributes = extra?.get(nativeId ?? '');
        const lazy = this.listed ? this.lazyPage(row, contents, attributes) : undefined;
        yield { type: 'file', file: documentRecord(row, docs, template, entries, attributes, lazy) };
      } catch (error) {
        if (!(error instanceof SqlRowError)) throw error;
        // Access rows of an unknown type: the readers the rows still name at most (fail closed).
        const narrowed = error instanceof UnresolvedAccessError ? { accessAtMost: error.accessAtMost } : {};
        yield { type: 'failure', kind: 'file', ...(nativeId !== undefined ? { nativeId } : {}), error, ...narrowed };
      }
    }
  }

  /** The page of a row listed without its content columns: versioned by the row, read whole (in a batch) when loaded. */
  private lazyPage(row: Row, contents: SqlContentLoader, extra: Readonly<Record<string, AttributeValue>> | undefined): (nativeId: string) => LazyHtml {
    const docs = this.mapping.documents;
    const version = contentVersion(row, docs, this.fingerprint, extra);
    const key = pick(row, docs.id) as DocumentKey;
    return (nativeId) => ({
      kind: 'html',
      ...(version !== undefined ? { version } : {}),
      load: async () => documentPage(await contents.row(key, nativeId), docs, this.config.mapping.template, extra),
    });
  }

  private async accessOf(reader: SqlReader, rows: readonly Row[], dir: Directory): Promise<ReturnType<typeof accessByDocument> | undefined> {
    const docs = this.mapping.documents;
    if (!docs.access) return undefined;
    const ids = rows.map((r) => idText(pick(r, docs.id))).filter((id): id is string => id !== undefined);
    return accessByDocument(await reader.where(docs.access, docs.access.document, ids), docs.access, dir);
  }

  /** Attribute rows of a page of documents, by document id (undefined when the mapping has none). */
  private async attributeRowsOf(reader: SqlReader, rows: readonly Row[]): Promise<ReturnType<typeof attributesByOwner> | undefined> {
    const docs = this.mapping.documents;
    if (!docs.attributeRows) return undefined;
    const ids = rows.map((r) => idText(pick(r, docs.id))).filter((id): id is string => id !== undefined);
    return attributesByOwner(await reader.where(docs.attributeRows, docs.attributeRows.owner, ids), docs.attributeRows);
  }

  /**
   * Every document id with its access and policy attributes (columns and attribute rows), a page
   * at a time (no bodies read): a change of attributes the change feed missed still reaches the policy.
   */
  private async *listing(ctx: AdapterContext, reader: SqlReader): AsyncGenerator<LiveFile> {
    const dir = this.directory ?? (await readDirectory(reader, this.mapping));
    const docs = this.mapping.documents;
    const columns = [...new Set([docs.id, ...Object.values(docs.attributes).map((a) => a.column)])];
    let after: Scalar | null = null;
    for (;;) {
      throwIfAborted(ctx.signal);
      const rows = await reader.pageById(docs, docs.id, after, this.config.pageSize, columns);
      const access = await this.accessOf(reader, rows, dir);
      const extra = await this.attributeRowsOf(reader, rows);
      for (const row of rows) {
        const nativeId = idText(pick(row, docs.id));
        const entries = access?.get(nativeId ?? '') ?? [];
        if (nativeId === undefined) continue;
        // Access rows of an unknown type: listed with the readers the rows still name at most, to narrow to (fail closed).
        if (entries instanceof UnresolvedAccessError) yield { nativeId, unresolved: entries, accessAtMost: entries.accessAtMost };
        else yield { nativeId, access: entries, attributes: { ...extra?.get(nativeId), ...rowAttributes(row, docs.attributes) } };
      }
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < this.config.pageSize) break;
      after = scalarOf(pick(last, docs.id));
    }
  }

  /** Staged documents the listing did not show are read by id (gone: delete); listed ones staging lacks are read whole. Content does not depend on access. */
  private async *settleRun(ctx: AdapterContext, reader: SqlReader, contents: SqlContentLoader, request: SettleRequest): AsyncGenerator<SettleEvent> {
    const dir = this.directory ?? (await readDirectory(reader, this.mapping));
    yield* this.byIdEvents(ctx, reader, contents, [...new Set([...request.unlisted, ...request.missing])], dir);
  }
}

/**
 * The adapter for a configuration: incremental (and reconciling) when the mapping says how, else
 * full runs only; access-only runs either way.
 */
export function createSqlAdapter(config: SqlAdapterConfig): Adapter {
  const adapter = new SqlAdapter(config);
  if (config.mapping.incremental.mode !== 'none') return adapter;
  const fullOnly: AccessOnlyAdapter = {
    name: adapter.name,
    full: (ctx, resume) => adapter.full(ctx, resume),
    permissions: (ctx) => adapter.permissions(ctx),
    liveFiles: (ctx) => adapter.liveFiles(ctx),
  };
  return fullOnly;
}
