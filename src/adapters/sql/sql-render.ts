import Mustache from 'mustache';
import type { DocumentsMapping } from './sql-mapping-schema';
import { escapeHtml } from '../../lib/escape-html';
import { pick, rowView, text, type Row } from './sql-values';

/** Plain text as HTML paragraphs (blank lines separate them; single newlines become `<br>`). */
export function textToHtml(value: string): string {
  return value
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => `<p>${escapeHtml(p).replace(/\r?\n/g, '<br>')}</p>`)
    .join('\n');
}

/** What a document's templates see: every column as text, plus `id`, `title`, `body` (HTML) and `attributes`. */
export interface DocumentView extends Record<string, unknown> {
  id: string;
  title: string;
  body: string;
}

export function documentView(row: Row, mapping: DocumentsMapping, id: string, title: string, attributes: Readonly<Record<string, unknown>>): DocumentView {
  const raw = mapping.body === undefined ? undefined : text(pick(row, mapping.body));
  const body = raw === undefined ? '' : mapping.bodyFormat === 'text' ? textToHtml(raw) : raw;
  return { ...rowView(row), id, title, body, attributes };
}

/**
 * The document's page. Values are escaped; the body column (HTML) goes in as the source wrote
 * it, as `{{{body}}}`. Rendering depends on the row only, so an unchanged row renders the same
 * bytes (and the engine writes nothing).
 */
export function renderDocument(template: string, view: DocumentView): string {
  return Mustache.render(template, view, {}, { escape: escapeHtml });
}

/** A URL template, every value percent-encoded: `https://wiki.example.com/pages/{{id}}`. */
export function renderUrl(template: string, view: DocumentView): string {
  return Mustache.render(template, view, {}, { escape: (value: unknown) => encodeURIComponent(String(value)) });
}
