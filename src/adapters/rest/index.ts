import type { AdapterFactory } from '../adapter-factory';
import { RestAdapter, type RestAdapterOptions } from './rest-adapter';
import { IncrementalRestAdapter } from './rest-incremental';
import { REST_SETTINGS, restConfigFromEnv } from './rest-config';
import { ReconcilingRestAdapter } from './rest-reconciling';

export { RestAdapter, type RestAdapterOptions } from './rest-adapter';
export { restConfigFromEnv, REST_SETTINGS, type RestAdapterConfig } from './rest-config';
export { loadRestManifest, parseRestManifest, RestManifestError, REST_MANIFEST_SCHEMA, type LoadedManifest } from './rest-manifest-file';
export type { RestManifest } from './rest-manifest';
export type { RestAuthenticatorHook, RestAuthenticatorHookFactory, RestHookContext, RestHookNextPage, RestHookPage, RestPaginatorHook } from './rest-hooks';
export { IncrementalRestAdapter } from './rest-incremental';
export { ReconcilingRestAdapter } from './rest-reconciling';

/** The adapter a manifest asks for: incremental when its documents declare `incremental_sync`, reconciling access when that does not list everything. */
export function createRestAdapter(options: RestAdapterOptions): RestAdapter {
  const sync = options.loaded.manifest.streams.documents.incremental_sync;
  if (!sync) return new RestAdapter(options);
  return sync.type === 'listed_version' ? new IncrementalRestAdapter(options) : new ReconcilingRestAdapter(options);
}

/** `rest`: any REST system a manifest describes, identity and access streams read fail-closed. */
export const restAdapterFactory: AdapterFactory = {
  name: 'rest',
  description:
    'A REST system described by a YAML manifest instead of code: requests, paging, records mapped by JSONata, users, groups and access lists read fail-closed (docs/declarative-sources.md).',
  settings: REST_SETTINGS.map((s) => ({ ...s })),
  create: (env) => {
    const config = restConfigFromEnv(env);
    return createRestAdapter({ name: config.name, loaded: config.loaded, env });
  },
};
