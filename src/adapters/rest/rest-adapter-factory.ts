import type { AdapterFactory } from '../adapter-factory';

/** The rest adapter's settings, as the environment spells them (shown by `sync --help` and the docs). */
export const REST_SETTINGS = [
  {
    env: 'REST_MANIFEST',
    description:
      'YAML manifest describing the REST system: requests, paging, records, users, groups and access (required; see docs/declarative-sources.md). Secrets in it are references to other environment variables.',
  },
  { env: 'REST_SOURCE_NAME', description: "Source name: the id prefix of everything synced from it. Default: the manifest's name, else rest." },
] as const;

/**
 * `rest`: any REST system a manifest describes, identity and access streams read fail-closed. The
 * registry loads only this file; `create` loads the adapter (JSONata, the manifest's schema) when it runs.
 */
export const restAdapterFactory: AdapterFactory = {
  name: 'rest',
  description:
    'A REST system described by a YAML manifest instead of code: requests, paging, records mapped by JSONata, users, groups and access lists read fail-closed (docs/declarative-sources.md).',
  settings: REST_SETTINGS,
  create: async (env) => {
    const { restConfigFromEnv } = await import('./rest-config');
    const { createRestAdapter } = await import('./create-rest-adapter');
    const config = restConfigFromEnv(env);
    return createRestAdapter({ name: config.name, loaded: config.loaded, env });
  },
};
