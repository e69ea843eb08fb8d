/** A page of a collection, in a repository's own field vocabulary `F` (the OData layer builds it). */
export type ComparisonOp = 'eq' | 'gt' | 'ge' | 'lt' | 'le';

export interface FilterClause<F extends string> {
  field: F;
  op: ComparisonOp;
  value: string;
}

export interface OrderBy<F extends string> {
  field: F;
  direction: 'asc' | 'desc';
}

export interface PageRequest<F extends string> {
  top: number;
  /** Rows to skip before the page; only on a first request (later pages seek by `after`). */
  skip: number;
  orderBy: OrderBy<F>;
  filters: Array<FilterClause<F>>;
  /** Keyset position: the ordering value of the last row served (unless ordering by the key), then its key. */
  after?: string[];
  /** Wire field names to keep (undefined: all). */
  select?: string[];
}

export interface Page<T> {
  items: T[];
  /** Keyset position after the last item, when more rows follow. */
  next?: string[];
}
