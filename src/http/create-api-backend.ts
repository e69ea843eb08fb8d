import type { OpenAPIBackend } from 'openapi-backend';
import { initOpenApiBackend } from '../lib/init-openapi-backend';
import type { LoadedDocument } from '../lib/load-openapi-document';

/**
 * The contract loaded by openapi-backend: the document checked (strict mode: a broken document
 * fails at start-up, unless `npm run contracts` checked this very text) and dereferenced, once per
 * process (every app shares it). An operation's Ajv request validators are compiled on its first
 * request (`initOpenApiBackend`).
 */
export function createApiBackend(contract: LoadedDocument): Promise<OpenAPIBackend> {
  return initOpenApiBackend(contract.document, { validate: true, ignoreTrailingSlashes: true }, contract.checked);
}
