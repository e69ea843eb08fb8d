import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { Document } from 'openapi-backend';
import { projectRoot } from '../lib/project-root';

export const CONTRACT_PATH = path.join(projectRoot(), 'openapi', 'content-gateway.yaml');

/** The gateway contract as a parsed OpenAPI document (a fresh copy each call: openapi-backend mutates it). */
export function loadContract(file: string = CONTRACT_PATH): Document {
  return YAML.parse(fs.readFileSync(file, 'utf8')) as Document;
}
