/**
 * What a collection offers to OData query options. Field names on the left are the wire names
 * (`last_modified_datetime`); `F` is the repository's own field vocabulary, so the staging layer
 * never sees OData names and the OData layer never sees columns.
 */
import type { ComparisonOp } from '../staging/read-path/page-query';

export type { ComparisonOp, FilterClause, OrderBy, PageRequest } from '../staging/read-path/page-query';

export type FieldType = { kind: 'string' } | { kind: 'datetime' } | { kind: 'enum'; values: readonly string[] };

export interface FilterableField<F extends string> {
  field: F;
  type: FieldType;
  ops: readonly ComparisonOp[];
}

export interface CollectionSpec<F extends string> {
  /** Wire fields that `$filter` accepts. */
  filterable: Readonly<Record<string, FilterableField<F>>>;
  /** Wire fields that `$orderby` accepts; the first entry is the default order. */
  orderable: Readonly<Record<string, F>>;
  /** The unique key that breaks ties and ends every keyset. */
  key: F;
  /** Wire fields `$select` may name. */
  selectable: readonly string[];
}
