export { RestAdapter, type RestAdapterOptions } from './rest-adapter';
export { createRestAdapter } from './create-rest-adapter';
export { REST_SETTINGS, restAdapterFactory } from './rest-adapter-factory';
export { restConfigFromEnv, type RestAdapterConfig } from './rest-config';
export { loadRestManifest, parseRestManifest, RestManifestError, REST_MANIFEST_SCHEMA, type LoadedManifest } from './rest-manifest-file';
export type { RestManifest } from './rest-manifest';
export type { RestAuthenticatorHook, RestAuthenticatorHookFactory, RestHookContext, RestHookNextPage, RestHookPage, RestPaginatorHook } from './rest-hooks';
export { IncrementalRestAdapter } from './rest-incremental';
export { ReconcilingRestAdapter } from './rest-reconciling';
