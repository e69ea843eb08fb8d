import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document, type Options } from 'openapi-backend';

type LoadOptions = Omit<Options, 'definition' | 'strict' | 'quick' | 'customizeAjv' | 'handlers'>;

/** Each document's loaded backend, by its text and options. */
const loaded = new Map<string, Promise<OpenAPIBackend>>();

async function load(definition: Document, options: LoadOptions, checked: boolean): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    ...options,
    definition,
    strict: true,
    // Validators are compiled when an operation is first validated, not all at `init()`: compiling
    // every operation's request, response and response-header validators took 600 ms of each
    // start (a gateway only ever validates requests; the conformance suite, responses).
    quick: true,
    customizeAjv: (ajv) => {
      addFormats(ajv);
      return ajv;
    },
  });
  await api.init();
  // `quick` also skips checking the document itself: check it here, so a broken one still fails at
  // start (unless this very document passed the same check already: `loadOpenApiDocument`).
  await api.loadDocument();
  if (!checked) api.validateDefinition();
  return api;
}

/**
 * An OpenAPI document loaded by openapi-backend in strict mode (a broken document throws), with
 * Ajv's string formats, its validators compiled on first use (`quick`).
 * Loaded once per process for the same document and options, and shared: callers only read it
 * (operations, validators) and never register handlers on it. A failed load is not kept.
 * `checked`: the document is one `validateDefinition()` passed already (`loadOpenApiDocument`
 * says so), so it is not checked again.
 */
export function initOpenApiBackend(definition: Document, options: LoadOptions = {}, checked = false): Promise<OpenAPIBackend> {
  // Checked or not is part of the key: a load that must check the document never shares a backend
  // one that was told the document is checked made without checking it.
  const key = JSON.stringify([definition, options, checked]);
  let api = loaded.get(key);
  if (!api) {
    api = load(definition, options, checked);
    api.catch(() => loaded.delete(key));
    loaded.set(key, api);
  }
  return api;
}
