import type { FileListing } from './crawl-record';
import { isObj } from './list-all';

/** Most files share one key set: keep one array per distinct set, not one per file. */
const keySets = new Map<string, string[]>();
function internKeys(keys: string[]): string[] {
  const joined = keys.join('\u0000');
  const known = keySets.get(joined);
  if (known) return known;
  if (keySets.size < 10_000) keySets.set(joined, keys);
  return keys;
}

export function toFileListing(item: unknown, url: string): FileListing | undefined {
  if (!isObj(item) || typeof item.id !== 'string') return undefined;
  const content = isObj(item.content) ? item.content : undefined;
  const listing: FileListing = {
    id: item.id,
    url,
    keys: internKeys(Object.keys(item)),
    contentKeys: internKeys(content ? Object.keys(content) : []),
    name: item.name,
    externalUrl: item.external_url,
    lastModified: item.last_modified_datetime,
    status: item.status,
    mimeType: content?.mime_type,
    downloadPath: content?.download_path,
    size: content?.size,
    sha1: content?.sha1_hash,
  };
  if (typeof content?.body === 'string') listing.listBodyLength = content.body.length;
  return listing;
}
