import fs from 'node:fs';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';
import { sha256Of, type CheckedDocumentFile } from './load-openapi-document';

/**
 * The `.checked.json` text for an OpenAPI document in YAML: the parsed document with the SHA-256
 * of its text, once openapi-backend's `validateDefinition()` (strict mode) passed on it; a broken
 * document rejects. `npm run contracts` writes it beside each document in openapi/, and a test
 * fails while one is missing or was written from other text.
 */
export async function checkedDocumentText(file: string): Promise<string> {
  const text = fs.readFileSync(file, 'utf8');
  const document = YAML.parse(text) as Document;
  // Loaded here only: the kit imports this module with the rest of content-gateway/lib.
  const { initOpenApiBackend } = await import('./init-openapi-backend');
  await initOpenApiBackend(structuredClone(document));
  const checked: CheckedDocumentFile = { sourceSha256: sha256Of(text), document };
  return `${JSON.stringify(checked, null, 2)}\n`;
}
