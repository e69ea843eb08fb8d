import crypto from 'node:crypto';
import Mustache from 'mustache';
import type { AttributeValue } from '../adapter';
import type { DocumentsMapping } from './sql-mapping-schema';
import { pick, rowView, text, type Row } from './sql-values';

/** What a document's templates see besides its columns (sql-render's view): never a column to read. */
const VIEW_KEYS = new Set(['id', 'title', 'body', 'attributes', '.']);
const COLUMN = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/** Every name a mustache template looks up (sections' names and those inside them), by its first segment. */
function templateNames(template: string): string[] {
  const names: string[] = [];
  const walk = (tokens: readonly unknown[]): void => {
    for (const token of tokens as ReadonlyArray<readonly unknown[]>) {
      const [type, value, , , children] = token;
      if (typeof value === 'string' && (type === 'name' || type === '&' || type === '#' || type === '^')) names.push(value.split('.')[0] ?? value);
      if (Array.isArray(children)) walk(children);
    }
  };
  walk(Mustache.parse(template));
  return names;
}

/**
 * The columns documents are listed with when their content is read lazily: everything a file's
 * record needs (id, title, URL or the columns its template names, times, authors, attributes,
 * custom attributes), and none of the content columns. Undefined when content is read with the
 * row instead: the mapping has no modified-time column to version it by or asks for
 * `contentReads: every-run`, the body column is one of those the record needs, or the URL
 * template renders the body.
 */
export function listedColumns(mapping: DocumentsMapping): string[] | undefined {
  if (mapping.modified === undefined || mapping.contentReads === 'every-run') return undefined;
  const urlNames = mapping.urlTemplate === undefined ? [] : templateNames(mapping.urlTemplate);
  if (urlNames.includes('body')) return undefined;
  const urlColumns = urlNames.filter((name) => !VIEW_KEYS.has(name));
  if (!urlColumns.every((name) => COLUMN.test(name))) return undefined;
  const columns = [
    mapping.id,
    mapping.title,
    mapping.url,
    mapping.modified,
    mapping.createdAt,
    mapping.createdBy,
    mapping.modifiedBy,
    ...Object.values(mapping.attributes).map((a) => a.column),
    ...Object.values(mapping.customAttributes),
    ...urlColumns,
  ].filter((c): c is string => c !== undefined);
  const unique = [...new Set(columns)];
  const body = mapping.body?.toLowerCase();
  return body !== undefined && unique.some((c) => c.toLowerCase() === body) ? undefined : unique;
}

/** A fingerprint of what pages are rendered by: the documents' mapping and the template. A change re-renders every page. */
export function contentFingerprint(mapping: DocumentsMapping, template: string): string {
  return crypto.hash('sha256', JSON.stringify({ documents: mapping, template }), 'hex').slice(0, 16);
}

/**
 * The version of a listed document's page: its modified time stands for the content columns, the
 * listed values (which the page may show too: title, attributes) and the content fingerprint for
 * the rest. Undefined when the row's modified time is NULL: its page is read on every run.
 */
export function contentVersion(
  row: Row,
  mapping: DocumentsMapping,
  fingerprint: string,
  extra: Readonly<Record<string, AttributeValue>> = {},
): string | undefined {
  if (mapping.modified === undefined || text(pick(row, mapping.modified)) === undefined) return undefined;
  const byName = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);
  const listed = Object.entries(rowView(row)).sort(byName);
  const attributes = Object.entries(extra).sort(byName);
  return `sql1:${crypto.hash('sha256', JSON.stringify([fingerprint, listed, attributes]), 'hex')}`;
}
