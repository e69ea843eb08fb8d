import crypto from 'node:crypto';
import fs from 'node:fs';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';

/** An OpenAPI document as loaded, and whether it is one `validateDefinition()` already passed. */
export interface LoadedDocument {
  document: Document;
  checked: boolean;
}

/** What `npm run contracts` writes beside each document in openapi/: its parsed form, once checked. */
export interface CheckedDocumentFile {
  /** SHA-256 (hex) of the YAML text the document was parsed from. */
  sourceSha256: string;
  document: Document;
}

/** `openapi/x.yaml` → `openapi/x.checked.json`. */
export function checkedPathOf(file: string): string {
  return file.replace(/\.ya?ml$/i, '') + '.checked.json';
}

export function sha256Of(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** Each file's loaded document, by its text. */
const loaded = new Map<string, { text: string; entry: LoadedDocument }>();

/**
 * An OpenAPI document from its YAML file, a fresh copy each call (openapi-backend mutates it).
 * Parsing the contract's YAML (about 100 ms) and checking it with `validateDefinition()` (about
 * 250 ms) are a third of a gateway's start, for a file that only changes with the code: when the
 * `.checked.json` beside it was written from this very text (its SHA-256 matches), its parsed form
 * is used and `checked` is true. Otherwise (a fork edited the YAML and did not run
 * `npm run contracts`, or there is no such file) the YAML is parsed and the document is checked
 * at start as before.
 */
export function loadOpenApiDocument(file: string): LoadedDocument {
  const text = fs.readFileSync(file, 'utf8');
  let cached = loaded.get(file);
  if (cached?.text !== text) {
    cached = { text, entry: checkedDocument(file, text) ?? { document: YAML.parse(text) as Document, checked: false } };
    loaded.set(file, cached);
  }
  return { document: structuredClone(cached.entry.document), checked: cached.entry.checked };
}

function checkedDocument(file: string, text: string): LoadedDocument | undefined {
  let checked: CheckedDocumentFile;
  try {
    checked = JSON.parse(fs.readFileSync(checkedPathOf(file), 'utf8')) as CheckedDocumentFile;
  } catch {
    return undefined;
  }
  return checked.sourceSha256 === sha256Of(text) ? { document: checked.document, checked: true } : undefined;
}
