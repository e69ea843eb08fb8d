import { RestAdapter, type RestAdapterOptions } from './rest-adapter';
import { IncrementalRestAdapter } from './rest-incremental';
import { ReconcilingRestAdapter } from './rest-reconciling';

/** The adapter a manifest asks for: incremental when its documents declare `incremental_sync`, reconciling access when that does not list everything. */
export function createRestAdapter(options: RestAdapterOptions): RestAdapter {
  const sync = options.loaded.manifest.streams.documents.incremental_sync;
  if (!sync) return new RestAdapter(options);
  return sync.type === 'listed_version' ? new IncrementalRestAdapter(options) : new ReconcilingRestAdapter(options);
}
