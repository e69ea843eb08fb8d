import type { AdapterFactory } from '../adapter-factory';
import { createExampleWikiAdapter, EXAMPLE_WIKI_ADAPTER_NAME } from './example-wiki-adapter';
import { EXAMPLE_WIKI_SETTINGS, exampleWikiConfigFromEnv } from './example-wiki-config';

export { createExampleWikiAdapter } from './example-wiki-adapter';
export { exampleWikiConfigFromEnv, type ExampleWikiConfig } from './example-wiki-config';

/** `example-wiki`: the adapter to read first. How the CLI builds it: `content-gateway sync example-wiki`. */
export const exampleWikiAdapterFactory: AdapterFactory = {
  name: EXAMPLE_WIKI_ADAPTER_NAME,
  description: "A wiki's REST API (the example adapter: read it first): pages as HTML with their readers, users, groups with direct members.",
  settings: EXAMPLE_WIKI_SETTINGS.map((s) => ({ ...s })),
  create: (env) => createExampleWikiAdapter(exampleWikiConfigFromEnv(env)),
};
