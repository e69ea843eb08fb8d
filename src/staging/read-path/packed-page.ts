import { compareCodePoints } from './code-point-order';
import type { PageRequest } from './page-query';

/** A page assembled from its items' stored, pre-serialised JSON. */
export interface StoredPage {
  /** The items' JSON joined by commas, as UTF-8 bytes (what goes between `[` and `]`). */
  json: Buffer;
  count: number;
  /** Keyset position after the last item, when more rows follow. */
  next?: string[];
}

/**
 * A page's rows as SQLite's aggregate hands them over: the items' stored JSON joined by commas into
 * one byte string, and beside it each row's JSON length and ordering values, in page order.
 */
export interface PackedPage {
  /** The rows' JSON joined by commas, as UTF-8 bytes (a row without JSON adds nothing but its comma). */
  items: Buffer;
  /** The byte length of each row's JSON (0 where it has none). */
  lengths: number[];
  /** Per ordering column, its values in page order, as text. */
  keys: string[][];
  /** Rows read. */
  n: number;
  /** Rows that have stored JSON. */
  stored: number;
}

/** Sign of the comparison of rows `a` and `b` by their keyset columns, in code point order as the database sorts. */
function compareRows(columns: ReadonlyArray<readonly string[]>, a: number, b: number): number {
  for (const values of columns) {
    const c = compareCodePoints(values[a] as string, values[b] as string);
    if (c !== 0) return c;
  }
  return 0;
}

/**
 * The page a `PackedPage` of up to `top + 1` rows holds, once it is seen to be whole (every row has
 * its JSON, the lengths add up to the bytes) and in page order, the extra row, which only says that
 * more follow, cut off; undefined otherwise.
 */
export function pageFromPacked<F extends string>(packed: PackedPage | undefined, page: PageRequest<F>): StoredPage | undefined {
  if (!packed) return undefined;
  const { items, lengths, keys, n } = packed;
  if (n === 0) return { json: Buffer.alloc(0), count: 0 };
  if (page.top < 1) return undefined;
  if (packed.stored !== n || lengths.length !== n || keys.some((values) => values.length !== n)) return undefined;

  const sign = page.orderBy.direction === 'asc' ? 1 : -1;
  let bytes = n - 1;
  for (let i = 0; i < n; i += 1) {
    bytes += lengths[i] as number;
    if (i > 0 && sign * compareRows(keys, i - 1, i) >= 0) return undefined;
  }
  if (bytes !== items.length) return undefined;

  if (n <= page.top) return { json: items, count: n };
  // The extra row only says that more follow: cut it (and its comma) off the end.
  const extra = lengths[n - 1] as number;
  const last = page.top - 1;
  return { json: items.subarray(0, items.length - extra - 1), count: page.top, next: keys.map((values) => values[last] as string) };
}
