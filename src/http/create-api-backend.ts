import type { Document, OpenAPIBackend } from 'openapi-backend';
import { initOpenApiBackend } from '../lib/init-openapi-backend';

/**
 * The contract loaded by openapi-backend: the document checked (strict mode: a broken document
 * fails at start-up) and dereferenced, once per process (every app shares it). An operation's
 * Ajv request validators are compiled on its first request (`initOpenApiBackend`).
 */
export function createApiBackend(definition: Document): Promise<OpenAPIBackend> {
  return initOpenApiBackend(definition, { validate: true, ignoreTrailingSlashes: true });
}
