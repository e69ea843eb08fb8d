import { RestAdapter, type RestAdapterOptions } from './rest-adapter';
import { IncrementalRestAdapter } from './rest-incremental';
import type { AccessSpec, DocumentsStream, ListedVersionSync } from './rest-manifest';
import { ReconcilingRestAdapter } from './rest-reconciling';

/**
 * Whether `listed_version` sees every change of access: only when each document's access is in
 * the record the listing hashes (no request, no container it inherits from, the default version)
 * and each child's is its parent's alone. Otherwise an access list can change while the listed
 * record does not, and the run's access is reconciled like the other incremental types.
 */
function listedRecordHoldsAccess(documents: DocumentsStream, sync: ListedVersionSync): boolean {
  const fromRecord = (access: AccessSpec) => access.request === undefined && access.inherit === undefined;
  const parentOnly = (access: AccessSpec) => fromRecord(access) && access.field === undefined && access.public === undefined;
  return sync.version === undefined && fromRecord(documents.access) && (documents.children ?? []).every((child) => parentOnly(child.access));
}

/** The adapter a manifest asks for: incremental when its documents declare `incremental_sync`, reconciling access when that does not list everything. */
export function createRestAdapter(options: RestAdapterOptions): RestAdapter {
  const documents = options.loaded.manifest.streams.documents;
  const sync = documents.incremental_sync;
  if (!sync) return new RestAdapter(options);
  return sync.type === 'listed_version' && listedRecordHoldsAccess(documents, sync) ? new IncrementalRestAdapter(options) : new ReconcilingRestAdapter(options);
}
