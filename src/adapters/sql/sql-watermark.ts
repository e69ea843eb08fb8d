/**
 * Keyset positions over `(order column, id)`: the modified-time column of documents, or the
 * sequence column of a change table. Rows are read in that order, a page after the last row of
 * the previous one, so rows sharing a timestamp are neither skipped nor read twice however many
 * there are. A position keeps the order column's value exactly as the database writes it as text
 * (`CAST(col AS TEXT)`: microseconds included, which a JavaScript Date would drop), and the row's
 * id as the driver returned it; both go back to the database as bound parameters.
 */

export type Scalar = string | number;

/** Where a reader stands: the last row read. */
export interface Position {
  value: Scalar;
  id: Scalar;
}

/** Rows after `value`, or when `id` is given, rows after `(value, id)`; `inclusive` rows with `value` itself too. */
export type Bound = { value: Scalar; id: Scalar } | { value: Scalar; inclusive: true };

const TIMESTAMP_TEXT = /^(\d{4})-(\d{2})-(\d{2})([ T])(\d{2}):(\d{2}):(\d{2})(\.\d+)?(.*)$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;
/** Rows this many seconds behind the last one read are read again by default: commits that land late are not lost. */
export const DEFAULT_TIMESTAMP_OVERLAP_S = 60;

/** A timestamp, or a date (a day-granular modified column), written as text. */
export function isTimestampText(value: Scalar): boolean {
  return typeof value === 'string' && (TIMESTAMP_TEXT.test(value) || DATE_TEXT.test(value));
}

/**
 * The default overlap for a column: timestamps are written by clocks and transactions that commit
 * out of order, so a minute is re-read; numbers (sequences, versions) are trusted to increase.
 */
export function defaultOverlap(value: Scalar): number {
  return isTimestampText(value) ? DEFAULT_TIMESTAMP_OVERLAP_S : 0;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * A timestamp written as text, `seconds` earlier, in the same format (separator, fraction and
 * zone suffix kept): `2026-05-01 10:00:00.123456+00` → `2026-05-01 09:59:00.123456+00`. The
 * suffix is an offset the shifted value keeps, so shifting the wall clock is exact.
 */
export function shiftTimestampText(value: string, seconds: number): string {
  const day = DATE_TEXT.exec(value);
  if (day) {
    // A date: whole days back, at least one when there is any overlap at all.
    const t = new Date(Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) - Math.ceil(seconds / 86_400) * 86_400_000);
    return `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  }
  const m = TIMESTAMP_TEXT.exec(value);
  if (!m) throw new Error(`not a timestamp: ${value}`);
  const [, y, mo, d, sep, h, mi, s, fraction = '', suffix = ''] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - Math.ceil(seconds) * 1000;
  const t = new Date(ms);
  const date = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
  return `${date}${sep}${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}${fraction}${suffix}`;
}

/** `value` moved back by `overlap` (seconds for timestamps, units for numbers); other text stays. */
export function shiftBack(value: Scalar, overlap: number): Scalar {
  if (overlap <= 0) return value;
  if (typeof value === 'number') return value - overlap;
  if (isTimestampText(value)) return shiftTimestampText(String(value), overlap);
  if (NUMBER_TEXT.test(value)) {
    const shifted = Number(value) - overlap;
    return Number.isSafeInteger(Number(value)) || value.includes('.') ? String(shifted) : value;
  }
  return value;
}

/**
 * Where an incremental run starts reading. A timestamp does not identify a write (a row updated
 * again within the same tick keeps its value), so for timestamps the run starts at the stored
 * value itself, inclusive, `overlap` seconds behind it (rows committed late with an earlier
 * value are read too). A number is taken to be a sequence that every write increases: the run
 * starts strictly after `(value, id)`, or `overlap` units behind it. `overlap` undefined: the
 * column's default. No position: from the start.
 */
export function startBound(position: Position | null, overlap: number | undefined): Bound | undefined {
  if (position === null) return undefined;
  const back = overlap ?? defaultOverlap(position.value);
  if (isTimestampText(position.value)) return { value: shiftBack(position.value, back), inclusive: true };
  const shifted = shiftBack(position.value, back);
  if (back > 0 && shifted !== position.value) return { value: shifted, inclusive: true };
  return { value: position.value, id: position.id };
}

/** Orders two positions' values as their column does: numerically when both are numbers (or number text), else as text. */
export function compareScalars(a: Scalar, b: Scalar): number {
  const na = typeof a === 'number' ? a : NUMBER_TEXT.test(a) ? Number(a) : Number.NaN;
  const nb = typeof b === 'number' ? b : NUMBER_TEXT.test(b) ? Number(b) : Number.NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb)) return na - nb;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** Whether a row at `(value, id)` comes after the bound, as the database compares them. */
export function isAfter(row: { value: Scalar; id: Scalar }, bound: Bound | undefined, compare: (a: Scalar, b: Scalar) => number): boolean {
  if (!bound) return true;
  const c = compare(row.value, bound.value);
  if ('inclusive' in bound) return c >= 0;
  return c > 0 || (c === 0 && compare(row.id, bound.id) > 0);
}

/** What a page of a change table comes to: per id, its last operation in the page. */
export function collapseChanges<Id>(changes: ReadonlyArray<{ id: Id; deleted: boolean }>): { upserts: Id[]; deletes: Id[] } {
  const last = new Map<Id, boolean>();
  for (const change of changes) {
    last.delete(change.id); // re-inserted: keeps the order of last changes
    last.set(change.id, change.deleted);
  }
  const upserts: Id[] = [];
  const deletes: Id[] = [];
  for (const [id, deleted] of last) (deleted ? deletes : upserts).push(id);
  return { upserts, deletes };
}
