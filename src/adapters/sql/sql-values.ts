import type { AttributeValue } from '../adapter';
import type { AttributeMapping } from './sql-mapping-schema';

/** A row as a driver returns it. */
export type Row = Readonly<Record<string, unknown>>;

/**
 * Sets an own property whatever its name: names come from the mapping and from the database's
 * rows, and an assignment to `__proto__` would replace the object's prototype instead.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The value of `column` in `row`. Postgres folds unquoted names in a query to lower case, so a
 * mapping that says `Title` still finds `title`: an exact match first, then any case.
 */
export function pick(row: Row, column: string): unknown {
  if (column in row) return row[column];
  const lower = column.toLowerCase();
  for (const key of Object.keys(row)) if (key.toLowerCase() === lower) return row[key];
  return undefined;
}

/** An id as the gateway keeps it: text, never empty. Undefined for NULL or blank. */
export function idText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return undefined;
}

/** Text for a page, an email or a name; undefined for NULL and for what has no text (binary). */
export function text(value: unknown): string | undefined {
  if (value === null || value === undefined || Buffer.isBuffer(value)) return undefined;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const TRUE_WORDS = new Set(['true', 't', 'yes', 'y', '1', 'on', 'active', 'enabled']);
const FALSE_WORDS = new Set(['false', 'f', 'no', 'n', '0', 'off', 'inactive', 'disabled', '']);

/** A flag as databases hold them: booleans, 0/1 (MySQL's tinyint), 't'/'f', yes/no. Undefined when it is none of them. */
export function flag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  if (Buffer.isBuffer(value) && value.length === 1) return value[0] !== 0; // MySQL BIT(1)
  return undefined;
}

function asList(value: unknown, separator: string): string[] | undefined {
  if (Array.isArray(value)) return value.map((v) => text(v)).filter((v): v is string => v !== undefined);
  if (typeof value === 'string') {
    const trimmed = value.trim();
    // A JSON array held as text (SQLite, a MySQL JSON column read as text).
    if (trimmed.startsWith('[')) {
      try {
        const parsed = JSON.parse(trimmed) as unknown;
        if (Array.isArray(parsed)) return asList(parsed, separator);
      } catch {
        // not JSON: split it
      }
    }
    return trimmed === ''
      ? []
      : trimmed
          .split(separator)
          .map((s) => s.trim())
          .filter((s) => s !== '');
  }
  const single = text(value);
  return single === undefined ? undefined : [single];
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/**
 * An attribute as policies read it. `auto` keeps numbers, booleans and text as they are (dates
 * as ISO text, arrays as lists of text); the other types convert, and a value that does not
 * convert is left out (a policy then sees the attribute as absent, which grants nothing).
 */
export function attributeValue(value: unknown, spec: AttributeMapping): AttributeValue | undefined {
  if (value === null || value === undefined) return undefined;
  switch (spec.type) {
    case 'number':
      return asNumber(value);
    case 'boolean':
      return flag(value);
    case 'list':
      return asList(value, spec.separator);
    case 'string':
      return text(value);
    default:
      if (typeof value === 'number' || typeof value === 'boolean') return value;
      if (Array.isArray(value)) return asList(value, spec.separator);
      return text(value);
  }
}

/** Policy inputs of a row: attribute name → value, absent values left out. */
export function rowAttributes(row: Row, specs: Readonly<Record<string, AttributeMapping>>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const value = attributeValue(pick(row, spec.column), spec);
    if (value !== undefined) setOwn(out, name, value);
  }
  return out;
}

/** A row as a template sees it: every column as text (dates ISO), binary columns left out. */
export function rowView(row: Row): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(row)) {
    const t = text(value);
    if (t !== undefined) setOwn(out, key, t);
  }
  return out;
}
