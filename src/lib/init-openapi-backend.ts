import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Options } from 'openapi-backend';

type LoadOptions = Omit<Options, 'definition' | 'strict' | 'quick' | 'customizeAjv' | 'handlers'>;

/** Each document's loaded backend, by its text and options: loading takes about half a second. */
const loaded = new Map<string, Promise<OpenAPIBackend>>();

async function load(definition: Document, options: LoadOptions): Promise<OpenAPIBackend> {
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

/**
 * An OpenAPI document loaded by openapi-backend in strict mode (a broken document throws), with
 * Ajv's string formats, fully initialised (`quick: false`: every validator compiled up front).
 * Loaded once per process for the same document and options, and shared: callers only read it
 * (operations, validators) and never register handlers on it. A failed load is not kept.
 */
export function initOpenApiBackend(definition: Document, options: LoadOptions = {}): Promise<OpenAPIBackend> {
  const key = JSON.stringify([definition, options]);
  let api = loaded.get(key);
  if (!api) {
    api = load(definition, options);
    api.catch(() => loaded.delete(key));
    loaded.set(key, api);
  }
  return api;
}
