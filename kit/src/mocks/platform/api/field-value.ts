/** A field of an in-memory Data API record, by its OData path (`detail/name`). */
export type Rec = Record<string, unknown>;
export type Value = string | number | boolean | null | undefined;

/** A field path (`cited`, `detail/name`) of a record. */
export function fieldValue(record: Rec, path: string): Value {
  let v: unknown = record;
  for (const part of path.split('/')) v = typeof v === 'object' && v !== null ? (v as Rec)[part] : undefined;
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as Value);
}
