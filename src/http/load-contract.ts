import path from 'node:path';
import type { Document } from 'openapi-backend';
import { loadOpenApiDocument, type LoadedDocument } from '../lib/load-openapi-document';
import { projectRoot } from '../lib/project-root';

export const CONTRACT_PATH = path.join(projectRoot(), 'openapi', 'content-gateway.yaml');

/** The gateway contract, and whether `npm run contracts` checked this very text (`loadOpenApiDocument`). */
export function loadGatewayContract(file: string = CONTRACT_PATH): LoadedDocument {
  return loadOpenApiDocument(file);
}

/** The gateway contract as a parsed OpenAPI document (a fresh copy each call: openapi-backend mutates it). */
export function loadContract(file: string = CONTRACT_PATH): Document {
  return loadOpenApiDocument(file).document;
}
