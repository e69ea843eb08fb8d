import type { Knex } from 'knex';
import { chunks } from '../../lib/chunks';
import { isPostgres, type Db } from '../database/create-db';
import { compileStatement, runCompiled, type CompiledStatement } from '../read-path/compiled-statement';
import { PreparedPageQuery } from '../read-path/prepared-page-query';
import { FILE_RESOURCE_COLUMNS } from '../../wire/file-resource';
import type { Page, PageRequest } from '../read-path/page-query';
import { queryPage } from '../read-path/query-page';
import type { FileRow, PermissionRow } from '../database/row-types';
import type { StoredPage } from '../read-path/packed-page';
import { StoredPageReader } from '../read-path/stored-page';

export type FileField = 'id' | 'status' | 'modified';
/**
 * Entries are unique per (type, id) within a file, so pages seek on that pair: `type` is the
 * ordering and `id` the tie-breaker (ordering by `id` alone would not be a unique keyset).
 */
export type PermissionField = 'type' | 'id';

const FILE_COLUMNS: Readonly<Record<FileField, string>> = { id: 'id', status: 'status', modified: 'modified_at' };
/** Entries are served by `served_id` (the person an account belongs to, see people.ts), not the source's reference. */
const PERMISSION_COLUMNS: Readonly<Record<PermissionField, string>> = {
  type: 'principal_type',
  id: 'served_id',
};

/**
 * Columns of a listed file: what its wire form reads, plus what downloads and permissions need.
 * The HTML body is left out unless asked for (it can be large).
 */
const LIST_COLUMNS = [...FILE_RESOURCE_COLUMNS, 'sha256', 'blob_key', 'permissions_modified_at'] as const;

/** The columns of the two single-row reads: a single-file GET's (`served`), and the row without its body (`meta`). */
const ROW_COLUMNS = { served: [...FILE_RESOURCE_COLUMNS, 'body_html'], meta: LIST_COLUMNS } as const;

/** Where an active binary file's content is stored, and what it must be (what `verify-blobs` checks). */
export interface StoredContent {
  id: string;
  source: string;
  blob_key: string;
  sha256: string | null;
  size: number | string | null;
}

/** What a single-file GET serves of a row. */
export type ServedFile = Pick<FileRow, (typeof FILE_RESOURCE_COLUMNS)[number] | 'body_html'>;

export class FilesRepository {
  private readonly storedPages: StoredPageReader<FileField>;
  private readonly rowSql = new Map<keyof typeof ROW_COLUMNS, { statement: CompiledStatement; rest: readonly Knex.Value[] }>();
  private readonly permissionPages: PreparedPageQuery<{ principal_type: PermissionRow['principal_type']; served_id: string }, PermissionField>;

  constructor(private readonly db: Db) {
    // Postgres lists from the generated `list_json` copy its list indexes include (see the migration).
    this.storedPages = new StoredPageReader<FileField>(db, 'files', FILE_COLUMNS, 'id', 'wire_json', isPostgres(db) ? 'list_json' : undefined);
    this.permissionPages = new PreparedPageQuery<{ principal_type: PermissionRow['principal_type']; served_id: string }, PermissionField>(
      db,
      ([fileId]) => db('file_permissions').distinct('principal_type', 'served_id').where({ file_id: fileId }).whereNotNull('served_id'),
      PERMISSION_COLUMNS,
      'id',
    );
  }

  /**
   * A page of files as rows, for the pages that are not the stored list JSON: a `$select`, or the
   * HTML body in the list (`INCLUDE_HTML_BODY_IN_LIST`).
   */
  async listFiles(page: PageRequest<FileField>, options: { includeBody: boolean }): Promise<Page<FileRow>> {
    const columns = options.includeBody ? [...LIST_COLUMNS, 'body_html'] : [...LIST_COLUMNS];
    return queryPage<FileRow, FileField>(this.db('files').select(columns), page, FILE_COLUMNS, 'id');
  }

  /** A page of files as their stored list JSON, joined into one byte string (see `StoredPageReader`). */
  listStoredFiles(page: PageRequest<FileField>): Promise<StoredPage> {
    return this.storedPages.read(page);
  }

  /**
   * A file's served columns (what its resource shows, body included), by one statement whose text
   * is built once: a single-file GET then costs no query building, and reads neither the stored
   * list JSON nor the sync's bookkeeping. On an SQLite file the statement runs on the server
   * thread's own read connection (`SqliteReadHandle`), compiled once, without knex's runner and
   * pool; knex's `query` event is emitted either way, so query logging and plan capture see it.
   */
  async getFile(id: string): Promise<ServedFile | undefined> {
    return this.rowById<ServedFile>('served', id);
  }

  /** A file's row without its HTML body (for permissions and downloads, which never serve it); read as `getFile` reads. */
  async getFileMeta(id: string): Promise<FileRow | undefined> {
    return this.rowById<FileRow>('meta', id);
  }

  /**
   * One file's `ROW_COLUMNS[shape]` by a statement built once per shape (the id is its first
   * binding, the limit of 1 stays as compiled): on an SQLite file on `SqliteReadHandle`, on Postgres
   * as a named prepared statement on a pooled connection (`pgPooledRows`), else through `knex.raw`.
   */
  private async rowById<Row>(shape: keyof typeof ROW_COLUMNS, id: string): Promise<Row | undefined> {
    let compiled = this.rowSql.get(shape);
    if (!compiled) {
      const built = this.db('files')
        .where({ id: '' })
        .first([...ROW_COLUMNS[shape]])
        .toSQL();
      compiled = { statement: compileStatement(built), rest: built.bindings.slice(1) };
      this.rowSql.set(shape, compiled);
    }
    return (await runCompiled<Row>(this.db, compiled.statement, [id, ...compiled.rest], 'first'))[0];
  }

  /** Active binary files with ids after `afterId`, in id order, `limit` at a time. */
  async binaryFilesAfter(afterId: string, limit: number): Promise<StoredContent[]> {
    return (await this.db('files')
      .where({ status: 'active' })
      .whereNotNull('blob_key')
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .select('id', 'source', 'blob_key', 'sha256', 'size')) as StoredContent[];
  }

  /**
   * Makes the next sync that sees these files read their content from the source again: the sync
   * engine reuses stored bytes only while the row's `source_version` is the source's, and rewrites
   * a row whose `content_hash` is not what it computes (a cleared one never is). Returns how many
   * rows it changed.
   */
  async forgetContent(ids: readonly string[]): Promise<number> {
    let changed = 0;
    for (const part of chunks(ids, 500))
      changed += await this.db('files').whereIn('id', part).where({ status: 'active' }).update({ content_hash: null, source_version: null });
    return changed;
  }

  /**
   * A file's access entries, paged by (type, id) so USER and GROUP entries interleave
   * deterministically, by a statement built once per page shape (`PreparedPageQuery`): a crawl
   * reads one such page per file. Two accounts of one person on a list are one entry
   * (`distinct`); an inactive account's entry serves nothing.
   */
  async listPermissions(fileId: string, page: PageRequest<PermissionField>): Promise<Page<PermissionRow>> {
    const result = await this.permissionPages.read([fileId], page);
    return {
      ...result,
      items: result.items.map((r) => ({ file_id: fileId, principal_type: r.principal_type, principal_id: r.served_id, action: 'VIEW' as const })),
    };
  }
}
