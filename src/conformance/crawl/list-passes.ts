import type { FilesPass, IdsPass } from './crawl-record';
import type { GatewayClient } from './gateway-client';
import { idKey, isObj, listAll } from './list-all';

/** `/v1/files` listed again (ids and timestamps only), with the default or an odd `$top`. */
export async function listFilesPass(client: GatewayClient, top?: number): Promise<FilesPass> {
  const startedAt = new Date().toISOString();
  const files: Array<[string, string | null]> = [];
  const seen = new Set<string>();
  const listing = await listAll(client, {
    collection: top === undefined ? 'files' : `files?$top=${top}`,
    kind: 'list-files',
    firstUrl: client.url(top === undefined ? '/v1/files' : `/v1/files?$top=${top}`),
    ...(top === undefined ? {} : { requestedTop: top }),
    keyOf: idKey,
    onItems: (items) => {
      for (const item of items) {
        if (!isObj(item) || typeof item.id !== 'string' || seen.has(item.id)) continue;
        seen.add(item.id);
        files.push([item.id, typeof item.last_modified_datetime === 'string' ? item.last_modified_datetime : null]);
      }
    },
  });
  return { listing, files, startedAt, finishedAt: new Date().toISOString() };
}

/** `/v1/users` or `/v1/groups` listed again (ids only). */
export async function listIdsPass(client: GatewayClient, collection: 'users' | 'groups'): Promise<IdsPass> {
  const ids: string[] = [];
  const seen = new Set<string>();
  const listing = await listAll(client, {
    collection,
    kind: collection,
    firstUrl: client.url(`/v1/${collection}`),
    keyOf: idKey,
    onItems: (items) => {
      for (const item of items) {
        const id = idKey(item);
        if (id !== undefined && !seen.has(id)) {
          seen.add(id);
          ids.push(id);
        }
      }
    },
  });
  return { listing, ids };
}
