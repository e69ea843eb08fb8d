import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';
import { projectRoot } from '../lib/project-root';

export const CONTRACT_PATH = path.join(projectRoot(), 'openapi', 'content-gateway.yaml');

/** Each file's parsed document, by its text: parsing the contract's YAML takes tens of milliseconds. */
const parsed = new Map<string, { text: string; document: Document }>();

/** The gateway contract as a parsed OpenAPI document (a fresh copy each call: openapi-backend mutates it). */
export function loadContract(file: string = CONTRACT_PATH): Document {
  const text = fs.readFileSync(file, 'utf8');
  let entry = parsed.get(file);
  if (entry?.text !== text) {
    entry = { text, document: YAML.parse(text) as Document };
    parsed.set(file, entry);
  }
  return structuredClone(entry.document);
}
