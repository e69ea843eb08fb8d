import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Options } from 'openapi-backend';

/**
 * An OpenAPI document loaded by openapi-backend in strict mode (a broken document throws), with
 * Ajv's string formats, fully initialised (`quick: false`: every validator compiled up front).
 */
export async function initOpenApiBackend(
  definition: Document,
  options: Omit<Options, 'definition' | 'strict' | 'quick' | 'customizeAjv'> = {},
): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    ...options,
    definition,
    strict: true,
    quick: false,
    customizeAjv: (ajv) => {
      addFormats(ajv);
      return ajv;
    },
  });
  await api.init();
  return api;
}
