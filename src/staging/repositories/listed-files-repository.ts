import type { Db } from '../database/create-db';
import { chunks } from '../../lib/chunks';
import { insertRows } from '../write-path/insert-rows';

/** Ids per `where … in` statement. */
const IDS_PER_STATEMENT = 500;

/**
 * One source's served files as an incremental run that lists everything compares with them
 * (the adapter contract's `StagedFiles`): their staged versions, and `sync_listed`, the files the
 * running run has listed, so what it did not list is found in the database rather than in a set
 * held in memory. Native ids in and out; the table keeps global ids (`<source>:<native id>`).
 * One run per source at a time (the caller holds its lock); `clear` before and after a run.
 */
export class ListedFilesRepository {
  private readonly prefix: string;

  constructor(
    private readonly db: Db,
    private readonly source: string,
  ) {
    this.prefix = `${source}:`;
  }

  async clear(): Promise<void> {
    await this.db('sync_listed').where({ source: this.source }).delete();
  }

  async list(nativeIds: readonly string[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    for (const part of chunks(nativeIds, IDS_PER_STATEMENT)) {
      const ids = part.map((id) => this.prefix + id);
      // One transaction for the batch: on SQLite a statement outside one commits on its own, which costs more than the insert.
      await this.db.transaction((trx) =>
        insertRows(
          trx,
          'sync_listed',
          ids.map((id) => ({ source: this.source, id })),
          ['source', 'id'],
          'ignore',
        ),
      );
      const rows = (await this.db('files').whereIn('id', ids).where({ status: 'active' }).select('native_id', 'source_version')) as Array<{
        native_id: string;
        source_version: string | null;
      }>;
      for (const row of rows) out.set(row.native_id, row.source_version);
    }
    return out;
  }

  async count(): Promise<number> {
    const row = (await this.db('files').where({ source: this.source, status: 'active' }).count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  }

  private unlistedQuery() {
    return this.db('files')
      .where({ source: this.source, status: 'active' })
      .whereNotIn('id', this.db('sync_listed').where({ source: this.source }).select('id'));
  }

  async unlistedCount(): Promise<number> {
    const row = (await this.unlistedQuery().count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  }

  async unlisted(after: string | undefined, limit: number): Promise<string[]> {
    const query = this.unlistedQuery().orderBy('id').limit(limit).select('native_id');
    if (after !== undefined) query.where('id', '>', this.prefix + after);
    return ((await query) as Array<{ native_id: string }>).map((r) => r.native_id);
  }
}
