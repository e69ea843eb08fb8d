import type { AdapterFactory } from '../adapter-factory';

/** Read from the environment only, never a command line: `sync --help` and docs/adapters.md list them. */
export const EXAMPLE_WIKI_SETTINGS = [
  { env: 'EXAMPLE_WIKI_URL', description: 'Base URL of the wiki REST API, e.g. https://wiki.example.com/api/v1 (required).' },
  { env: 'EXAMPLE_WIKI_TOKEN', description: 'Bearer token of a service account that can read every page (required; secret: never logged).' },
] as const;

/**
 * `example-wiki`, the adapter to read first: how the CLI lists it and builds it (`content-gateway
 * sync example-wiki`). The registry loads only this file; `create` loads the adapter's code when it
 * runs, so a sync of another adapter never loads this one.
 */
export const exampleWikiAdapterFactory: AdapterFactory = {
  name: 'example-wiki',
  description: "A wiki's REST API (the example adapter: read it first): pages as HTML with their readers, users, groups with direct members.",
  settings: EXAMPLE_WIKI_SETTINGS,
  create: async (env) => {
    const { exampleWikiConfigFromEnv } = await import('./example-wiki-config');
    const { createExampleWikiAdapter } = await import('./example-wiki-adapter');
    return createExampleWikiAdapter(exampleWikiConfigFromEnv(env));
  },
};
