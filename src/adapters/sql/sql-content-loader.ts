import DataLoader from 'dataloader';
import type { DocumentsMapping } from './sql-mapping-schema';
import type { SqlReader } from './sql-reader';
import { SqlRowError } from './sql-records';
import { idText, pick, type Row } from './sql-values';

/** A document id as the listing read it: what `where id in (...)` binds. */
export type DocumentKey = string | number;

/** A reader of its own, for loads that come after the run's connection is closed. */
export interface ReaderLease {
  reader: SqlReader;
  release(): Promise<void>;
}

/**
 * Reads documents' whole rows, their content columns among them, for pages loaded lazily. The
 * loads asked for in one tick (the engine starts a batch's together) go out as one `where id in
 * (...)` query, batched by dataloader; nothing is cached, so each page is read when asked for and
 * then let go. Loads after `close` (the run's connection is gone) lease a connection per batch.
 * Errors pass through `wrap` (the adapter's source errors, the URL's password masked).
 */
export class SqlContentLoader {
  private readonly loader: DataLoader<DocumentKey, Row | undefined, string>;
  private readonly inFlight = new Set<Promise<unknown>>();
  private open = true;

  constructor(
    private readonly reader: SqlReader,
    private readonly docs: DocumentsMapping,
    private readonly lease: () => ReaderLease,
    private readonly wrap: (error: unknown) => unknown,
  ) {
    this.loader = new DataLoader((keys) => this.track(this.readBatch(keys)), { cache: false });
  }

  /** The document's whole row. Throws SqlRowError when it left the table since it was listed. */
  async row(key: DocumentKey, nativeId: string): Promise<Row> {
    const row = await this.loader.load(key);
    if (row === undefined) throw new SqlRowError(`document ${nativeId}: no longer in the source (deleted since it was listed)`);
    return row;
  }

  /** No more loads on the run's connection: waits for those under way, so it can be closed. */
  async close(): Promise<void> {
    this.open = false;
    await Promise.allSettled([...this.inFlight]);
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.inFlight.add(promise);
    const settled = () => this.inFlight.delete(promise);
    promise.then(settled, settled);
    return promise;
  }

  private async readBatch(keys: readonly DocumentKey[]): Promise<Array<Row | undefined>> {
    let rows: Row[];
    try {
      rows = this.open ? await this.reader.byIds(this.docs, this.docs.id, keys) : await this.leased(keys);
    } catch (error) {
      throw this.wrap(error);
    }
    const byId = new Map(rows.map((row) => [idText(pick(row, this.docs.id)), row]));
    return keys.map((key) => byId.get(idText(key)));
  }

  private async leased(keys: readonly DocumentKey[]): Promise<Row[]> {
    const lease = this.lease();
    try {
      return await lease.reader.byIds(this.docs, this.docs.id, keys);
    } finally {
      await lease.release();
    }
  }
}
