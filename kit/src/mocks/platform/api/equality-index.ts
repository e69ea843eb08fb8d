/**
 * Per entity set and field path, the records by field value, grown as records are appended (the
 * simulator's record arrays only ever grow). With `equalityKeys` it answers a filter such as
 * `detail/external_resource_id eq 'a' or … eq 'b'` from the matching buckets, so counting over
 * 100,000 records costs what the matches cost, as in a real store with an index.
 */
import { fieldValue } from './field-value';

type Rec = Record<string, unknown>;

interface PathIndex {
  indexed: number;
  byValue: Map<string, Rec[]>;
}

export class EqualityIndex {
  private readonly sets = new WeakMap<readonly Rec[], Map<string, PathIndex>>();

  /** The records whose `path` is one of `values` (in no particular order). */
  lookup(records: readonly Rec[], path: string, values: ReadonlySet<string>): Rec[] {
    let paths = this.sets.get(records);
    if (!paths) this.sets.set(records, (paths = new Map()));
    let index = paths.get(path);
    if (!index) paths.set(path, (index = { indexed: 0, byValue: new Map() }));
    for (; index.indexed < records.length; index.indexed++) {
      const record = records[index.indexed] as Rec;
      const key = String(fieldValue(record, path));
      const bucket = index.byValue.get(key);
      if (bucket) bucket.push(record);
      else index.byValue.set(key, [record]);
    }
    const out: Rec[] = [];
    for (const v of values) out.push(...(index.byValue.get(v) ?? []));
    return out;
  }
}
