/**
 * A page's rows as the server thread receives them: the items' stored JSON joined by commas into
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

/** Packs page rows, each `[ordering values (width of them)…, JSON or null]`, into a `PackedPage`. */
export function packPageRows(rows: ReadonlyArray<readonly unknown[]>, width: number): PackedPage {
  const keys: string[][] = Array.from({ length: width }, () => new Array<string>(rows.length));
  const lengths = new Array<number>(rows.length);
  const parts = new Array<string>(rows.length);
  let stored = 0;
  rows.forEach((row, i) => {
    for (let c = 0; c < width; c += 1) (keys[c] as string[])[i] = String(row[c]);
    const json = row[width];
    parts[i] = typeof json === 'string' ? json : '';
    lengths[i] = typeof json === 'string' ? Buffer.byteLength(json, 'utf8') : 0;
    if (typeof json === 'string') stored += 1;
  });
  return { items: Buffer.from(parts.join(','), 'utf8'), lengths, keys, n: rows.length, stored };
}
