import type { Knex } from 'knex';
import type { SqlDialect } from './sql-connection';
import type { RowSource } from './sql-mapping-schema';
import type { Row } from './sql-values';
import type { Bound, Position, Scalar } from './sql-watermark';

/** The column a keyset read adds: the order column as the database writes it as text. */
export const POSITION_COLUMN = 'cg__position';

/** A keyset-ordered read: rows of `source` in `(order, id)` order, after `after`, up to `upTo` (inclusive). */
export interface OrderedRead {
  source: RowSource;
  order: string;
  id: string;
  after: Bound | undefined;
  upTo?: Position | undefined;
  limit: number;
  /** What to select besides the position (default every column). */
  columns?: readonly string[];
}

/** The most whereIn values one statement binds (SQLite allows 32766 parameters in all). */
const IN_CHUNK = 500;

/**
 * Every query the SQL adapter runs, built with knex: table and column names are identifiers
 * (quoted by knex), values are bound parameters, and an operator's `query` is used as written,
 * as the derived table `(<query>) as cg_src`. Reads only: nothing here writes.
 */
export class SqlReader {
  constructor(
    readonly db: Knex,
    readonly dialect: SqlDialect,
  ) {}

  /** `select … from <table>` or `select … from (<query>) as cg_src`. */
  from(source: RowSource): Knex.QueryBuilder {
    if (source.table !== undefined) return this.db.from(source.table);
    return this.db.from(this.db.raw(`(${source.query ?? ''}) as cg_src`));
  }

  /** Every row of a source (users, roles, groups, members: read whole each run). */
  async all(source: RowSource): Promise<Row[]> {
    return (await this.from(source).select('*')) as Row[];
  }

  /** Rows with ids after `after` (`null`: from the first), in id order: the pages of a full run and of a listing. */
  async pageById(source: RowSource, id: string, after: Scalar | null, limit: number, columns: readonly string[] = ['*']): Promise<Row[]> {
    const q = this.from(source)
      .select(...columns)
      .whereNotNull(id)
      .orderBy(id)
      .limit(limit);
    if (after !== null) q.where(id, '>', after);
    return (await q) as Row[];
  }

  /** The rows whose id is one of `ids` (`columns` of them, default every one). */
  async byIds(source: RowSource, id: string, ids: readonly Scalar[], columns: readonly string[] = ['*']): Promise<Row[]> {
    const out: Row[] = [];
    for (let i = 0; i < ids.length; i += IN_CHUNK)
      out.push(
        ...((await this.from(source)
          .select(...columns)
          .whereIn(id, ids.slice(i, i + IN_CHUNK))) as Row[]),
      );
    return out;
  }

  /** The text the database writes for a value of `column`, so positions keep its full precision. */
  private positionOf(column: string): Knex.Raw {
    return this.db.raw(`CAST(?? AS ${this.dialect === 'mysql' ? 'CHAR' : 'TEXT'}) AS ??`, [column, POSITION_COLUMN]);
  }

  /**
   * One page of a keyset read: `where (order, id) > after and (order, id) <= upTo order by order,
   * id limit n`, written out with OR since not every dialect compares row values. Rows with a
   * NULL order value are never read this way (full runs read them).
   */
  async ordered(read: OrderedRead): Promise<Row[]> {
    const { order, id, after, upTo } = read;
    const q = this.from(read.source)
      .select(...(read.columns ?? ['*']), this.positionOf(order))
      .whereNotNull(order)
      .whereNotNull(id);
    if (after) {
      if ('inclusive' in after) q.where(order, '>=', after.value);
      else q.where((w) => w.where(order, '>', after.value).orWhere((e) => e.where(order, '=', after.value).andWhere(id, '>', after.id)));
    }
    if (upTo) q.where((w) => w.where(order, '<', upTo.value).orWhere((e) => e.where(order, '=', upTo.value).andWhere(id, '<=', upTo.id)));
    return (await q.orderBy([order, id]).limit(read.limit)) as Row[];
  }

  /** The last row in `(order, id)` order: where a run that starts now must read up to. Undefined when there is none. */
  async lastPosition(source: RowSource, order: string, id: string): Promise<Position | undefined> {
    const row = (await this.from(source)
      .select(this.positionOf(order), this.db.raw('?? AS ??', [id, 'cg__id']))
      .whereNotNull(order)
      .whereNotNull(id)
      .orderBy([
        { column: order, order: 'desc' },
        { column: id, order: 'desc' },
      ])
      .first()) as Row | undefined;
    if (!row) return undefined;
    return { value: scalarOf(row[POSITION_COLUMN]), id: scalarOf(row.cg__id) };
  }

  /** Rows of `source` whose `column` is one of `values` (access rows of a page of documents). */
  async where(source: RowSource, column: string, values: readonly Scalar[]): Promise<Row[]> {
    return this.byIds(source, column, values);
  }
}

/** A position's value as checkpoints keep it: numbers stay numbers, everything else is text. */
export function scalarOf(value: unknown): Scalar {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return String(value);
}
