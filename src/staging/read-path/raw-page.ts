import type { StoredPage } from './packed-page';
import type { TextRow } from './pg-pooled-query';

/**
 * The page in a Postgres keyset query's rows (up to `top + 1`, each `[ordering values (width of
 * them)…, the item's JSON]` as the text Postgres sent): the first `top` rows' JSON joined by
 * commas, as UTF-8 bytes, and, when the extra row says that more follow, the last served row's
 * ordering values as the next position; the extra row is only read for its presence. The rows'
 * order is the query's `ORDER BY`, so unlike SQLite's aggregate (`pageFromPacked`) it is not
 * checked again. Every file row holds its list JSON (the writers build it, a migration filled the
 * rows written before): a served row without it (null or empty) fails the page rather than serving it broken.
 */
export function pageFromRawRows(rows: readonly TextRow[], width: number, top: number): StoredPage {
  const count = Math.min(rows.length, Math.max(0, top));
  const parts = new Array<string>(count);
  for (let i = 0; i < count; i += 1) {
    const json = rows[i]?.[width];
    if (!json) throw new Error('a listed row has no stored list JSON');
    parts[i] = json;
  }
  const page: StoredPage = { json: Buffer.from(parts.join(','), 'utf8'), count };
  const last = rows[count - 1];
  if (rows.length <= count || !last) return page;
  return { ...page, next: last.slice(0, width).map((value) => String(value)) };
}
