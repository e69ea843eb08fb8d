import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';

/**
 * The contract loaded by openapi-backend: the document checked (strict mode: a broken document
 * fails at start-up), dereferenced, and the Ajv request validators of every operation compiled,
 * all in `init()`, awaited here. Requests are not answered through it: `contractDispatcher` routes
 * them by a table built from its operations and calls those validators directly.
 */
export async function createApiBackend(definition: Document): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    quick: false,
    validate: true,
    ignoreTrailingSlashes: true,
    customizeAjv: (ajv) => {
      addFormats(ajv);
      return ajv;
    },
  });
  await api.init();
  return api;
}
