import type { StoredPage } from './packed-page';
import type { RawRow } from './pg-page-pool';

const COMMA = Buffer.from(',');

/**
 * The page in a Postgres keyset query's rows (up to `top + 1`, each `[ordering values (width of
 * them)…, the item's JSON]` as the bytes Postgres sent): the first `top` rows' JSON joined by
 * commas, and, when the extra row says that more follow, the last served row's ordering values as
 * the next position. Undefined when a served row has no stored JSON (null or empty) (the caller reads that page
 * row by row); the extra row is only read for its presence. The rows' order is the query's
 * `ORDER BY`, so unlike SQLite's aggregate (`pageFromPacked`) it is not checked again.
 */
export function pageFromRawRows(rows: readonly RawRow[], width: number, top: number): StoredPage | undefined {
  const count = Math.min(rows.length, Math.max(0, top));
  const parts = new Array<Buffer>(Math.max(0, 2 * count - 1));
  let bytes = Math.max(0, count - 1);
  for (let i = 0; i < count; i += 1) {
    const json = rows[i]?.[width];
    if (!json || json.length === 0) return undefined;
    if (i > 0) parts[2 * i - 1] = COMMA;
    parts[2 * i] = json;
    bytes += json.length;
  }
  const page: StoredPage = { json: Buffer.concat(parts, bytes), count };
  const last = rows[count - 1];
  if (rows.length <= count || !last) return page;
  return { ...page, next: last.slice(0, width).map((value) => String(value)) };
}
