import type { Document, OpenAPIBackend } from 'openapi-backend';
import { initOpenApiBackend } from '../lib/init-openapi-backend';

/**
 * The contract loaded by openapi-backend: the document checked (strict mode: a broken document
 * fails at start-up), dereferenced, and the Ajv request validators of every operation compiled,
 * all in `init()`, awaited here, once per process (every app shares it: `contractDispatcher`
 * only reads it).
 */
export function createApiBackend(definition: Document): Promise<OpenAPIBackend> {
  return initOpenApiBackend(definition, { validate: true, ignoreTrailingSlashes: true });
}
