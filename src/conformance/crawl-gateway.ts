import type { Logger } from '../logging/create-logger';
import { ConcurrencyPool } from '../lib/concurrency-pool';
import type {
  CrawlRecord,
  ExchangeKind,
  FileDetail,
  FileDownload,
  FileListing,
  FilesPass,
  FileSummary,
  GroupRecord,
  IdsPass,
  ListingSummary,
  Principal,
  UserRecord,
} from './crawl-record';
import type { GatewayClient, GatewayResponse } from './gateway-client';

const MAX_NEXT_LINKS = 20_000;
const MAX_DUPLICATES = 200;
const MAX_PAGES = 1_000_000;
/** Member and permission listings kept in the record beyond the top-level ones (only notable ones). */
const MAX_NOTABLE_LISTINGS = 1000;
/** Pages longer than this are worth keeping (the platform asks for 1,000–5,000 members a page). */
export const LARGE_PAGE = 5000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function header(res: GatewayResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export interface ListRequest {
  collection: string;
  kind: ExchangeKind;
  firstUrl: string;
  /** The encoded path the contract matches the first page by, when `firstUrl` carries a raw id. */
  firstContractPath?: string;
  requestedTop?: number;
  /** Where the items are: `value`, or `value.permissions` for access lists. */
  permissions?: boolean;
  /** The key duplicates are judged by: `id`, or `TYPE id` for members and access entries. */
  keyOf: (item: unknown) => string | undefined;
  onItems: (items: unknown[], pageUrl: string) => void | Promise<void>;
  /** Pages read at most (a probe's bound on a chain that may never end). */
  maxPages?: number;
}

/**
 * Follows a collection through its `@odata.nextLink`s to the end, as the platform does: the link
 * is followed verbatim (a relative one is resolved so the crawl can go on, and flagged later), a
 * missing, null or empty link ends the list, a link already visited stops it.
 */
export async function listAll(client: GatewayClient, r: ListRequest): Promise<ListingSummary> {
  const summary: ListingSummary = { collection: r.collection, firstUrl: r.firstUrl, pages: 0, items: 0, maxPageItems: 0, nextLinks: [], duplicates: [] };
  if (r.requestedTop !== undefined) summary.requestedTop = r.requestedTop;
  const seen = new Set<string>();
  const visited = new Set<string>();
  let url: string | undefined = r.firstUrl;
  while (url !== undefined) {
    if (visited.has(url)) {
      summary.loop = { url };
      break;
    }
    if (summary.pages >= (r.maxPages ?? MAX_PAGES)) {
      summary.failure = { url, status: 0, message: `more than ${r.maxPages ?? MAX_PAGES} pages; stopped` };
      break;
    }
    visited.add(url);
    const contractPath = url === r.firstUrl ? r.firstContractPath : undefined;
    const res = await client.get(url, { kind: r.kind, mode: 'json', ...(contractPath ? { contractPath } : {}) });
    if (res.status !== 200) {
      summary.failure = { url, status: res.status, message: res.error ?? `HTTP ${res.status}` };
      break;
    }
    if (res.jsonError !== undefined || !isObj(res.json)) {
      summary.failure = { url, status: res.status, message: res.jsonError ?? 'the body is not a JSON object' };
      break;
    }
    const body: Obj = res.json;
    const holder = r.permissions ? body.value : body;
    const items = isObj(holder) ? (r.permissions ? holder.permissions : holder.value) : undefined;
    if (!Array.isArray(items)) {
      summary.failure = { url, status: res.status, message: r.permissions ? 'value.permissions is not an array' : 'value is not an array' };
      break;
    }
    summary.pages++;
    summary.items += items.length;
    summary.maxPageItems = Math.max(summary.maxPageItems, items.length);
    for (const item of items) {
      const key = r.keyOf(item);
      if (key === undefined) continue;
      if (seen.has(key)) {
        if (summary.duplicates.length < MAX_DUPLICATES) summary.duplicates.push({ key, url });
      } else seen.add(key);
    }
    await r.onItems(items, url);
    const next = body['@odata.nextLink'];
    if (next === undefined || next === null || next === '') break;
    if (typeof next !== 'string') {
      summary.failure = { url, status: res.status, message: `@odata.nextLink is not a string: ${JSON.stringify(next)}` };
      break;
    }
    if (summary.nextLinks.length < MAX_NEXT_LINKS) summary.nextLinks.push(next);
    try {
      // Absolute links are followed verbatim; a relative one is resolved only so the crawl goes on.
      url = /^https?:\/\//i.test(next) ? next : new URL(next, url).href;
    } catch {
      summary.failure = { url, status: res.status, message: `@odata.nextLink is not a URL: ${next}` };
      break;
    }
  }
  return summary;
}

/** The first page of a listing below an id: its URL and the path the contract knows it by. */
const firstPage = (p: { url: string; contractPath: string }) => ({ firstUrl: p.url, firstContractPath: p.contractPath });

const idKey = (item: unknown): string | undefined => (isObj(item) && typeof item.id === 'string' ? item.id : undefined);
const principalKey = (item: unknown): string | undefined => (isObj(item) ? `${String(item.type)} ${String(item.id)}` : undefined);

function toPrincipal(item: unknown): Principal | undefined {
  if (!isObj(item)) return undefined;
  const p: Principal = { type: typeof item.type === 'string' ? item.type : String(item.type), id: typeof item.id === 'string' ? item.id : String(item.id) };
  if (item.action !== undefined) p.action = typeof item.action === 'string' ? item.action : String(item.action);
  return p;
}

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

function isBinary(listing: FileListing): boolean {
  return typeof listing.mimeType === 'string' && listing.mimeType.toLowerCase() !== 'text/html';
}

export interface CrawlOptions {
  /** Files (and groups) being read at once; requests in flight are capped by the client. */
  concurrency: number;
  logger?: Logger;
  /** Skip `/download` (answers from a quick crawl, e.g. `who-can-see`). */
  skipDownloads?: boolean;
}

/**
 * Crawls a gateway the way the platform does: the permission model; every file (following
 * nextLinks), each active file's metadata (`/v1/files/{id}`), its binary (hashed as it streams)
 * and its access list (paged); every group and its direct members (paged); every user. Keeps only
 * per-file summaries.
 */
export async function crawlGateway(client: GatewayClient, options: CrawlOptions): Promise<CrawlRecord> {
  const startedAt = new Date().toISOString();
  const listings: ListingSummary[] = [];
  let notable = 0;
  const keepIfNotable = (l: ListingSummary) => {
    if ((l.pages > 1 || l.maxPageItems > LARGE_PAGE || l.duplicates.length || l.loop || l.failure) && notable < MAX_NOTABLE_LISTINGS) {
      notable++;
      listings.push(l);
    }
  };
  const pool = new ConcurrencyPool(options.concurrency);
  const queueLimit = options.concurrency * 10;

  // The permission model.
  const metadataUrl = client.url('/v1/files/permissions/metadata');
  const meta = await client.get(metadataUrl, { kind: 'metadata', mode: 'json' });
  const metadata: CrawlRecord['metadata'] = { url: metadataUrl, status: meta.status };
  if (isObj(meta.json)) metadata.model = meta.json.model;
  if (meta.error ?? meta.jsonError) metadata.error = meta.error ?? meta.jsonError;

  // Files, and per file: metadata, binary, access list.
  const files = new Map<string, FileSummary>();
  const readFile = async (summary: FileSummary): Promise<void> => {
    const id = summary.listing.id;
    const detail = async () => {
      const { url, contractPath } = client.idUrl('/v1/files/', id);
      const res = await client.get(url, { kind: 'get-file', mode: 'json', contractPath });
      const d: FileDetail = { url, status: res.status };
      const value = isObj(res.json) && isObj(res.json.value) ? res.json.value : undefined;
      if (value) {
        d.id = value.id;
        d.lastModified = value.last_modified_datetime;
        const content = isObj(value.content) ? value.content : undefined;
        d.mimeType = content?.mime_type;
        if (content && 'body' in content) {
          d.bodyType = typeof content.body;
          if (typeof content.body === 'string') d.bodyLength = content.body.length;
        }
      }
      summary.detail = d;
    };
    const access = async () => {
      const entries: Principal[] = [];
      const listing = await listAll(client, {
        collection: `permissions:${id}`,
        kind: 'permissions',
        ...firstPage(client.idUrl('/v1/files/', id, '/permissions')),
        permissions: true,
        keyOf: principalKey,
        onItems: (items) => {
          for (const item of items) {
            const p = toPrincipal(item);
            if (p) entries.push(p);
          }
        },
      });
      summary.permissions = { url: listing.firstUrl, status: listing.failure?.status ?? 200, entries, pages: listing.pages };
      if (listing.failure) summary.permissions.error = listing.failure.message;
      keepIfNotable(listing);
    };
    const download = async () => {
      const { url, contractPath } = client.idUrl('/v1/files/', id, '/download');
      const res = await client.get(url, { kind: 'download', mode: 'hash', contractPath });
      const d: FileDownload = { url, status: res.status, bytes: res.bytes };
      const contentType = header(res, 'content-type');
      const contentLength = header(res, 'content-length');
      const checksum = header(res, 'checksum-sha256');
      if (contentType !== undefined) d.contentType = contentType;
      if (contentLength !== undefined) d.contentLength = contentLength;
      if (checksum !== undefined) d.checksumSha256 = checksum;
      if (res.sha256) d.sha256 = res.sha256;
      if (res.sha1) d.sha1 = res.sha1;
      if (res.error) d.error = res.error;
      summary.download = d;
    };
    await Promise.all([detail().then(() => (isBinary(summary.listing) && !options.skipDownloads ? download() : undefined)), access()]);
  };
  const failures: unknown[] = [];
  const filesListing = await listAll(client, {
    collection: 'files',
    kind: 'list-files',
    firstUrl: client.url('/v1/files'),
    keyOf: idKey,
    onItems: async (items, url) => {
      for (const item of items) {
        const listing = toFileListing(item, url);
        if (!listing || files.has(listing.id)) continue;
        const summary: FileSummary = { listing };
        files.set(listing.id, summary);
        if (listing.status === 'deleted') continue;
        await pool.whenBelow(queueLimit);
        pool.run(() => readFile(summary)).catch((error: unknown) => failures.push(error));
      }
    },
  });
  listings.push(filesListing);
  await pool.idle();
  if (failures.length) throw failures[0];
  options.logger?.info({ files: files.size, pages: filesListing.pages }, 'conformance: files crawled');

  // Groups and their direct members.
  const groups = new Map<string, GroupRecord>();
  const groupsListing = await listAll(client, {
    collection: 'groups',
    kind: 'groups',
    firstUrl: client.url('/v1/groups'),
    keyOf: idKey,
    onItems: (items, url) => {
      for (const item of items) {
        if (!isObj(item) || typeof item.id !== 'string' || groups.has(item.id)) continue;
        groups.set(item.id, { id: item.id, url, name: item.name });
      }
    },
  });
  listings.push(groupsListing);
  await Promise.all(
    [...groups.values()].map((g) =>
      pool.run(async () => {
        const entries: Principal[] = [];
        const listing = await listAll(client, {
          collection: `members:${g.id}`,
          kind: 'members',
          ...firstPage(client.idUrl('/v1/groups/', g.id, '/members')),
          keyOf: principalKey,
          onItems: (items) => {
            for (const item of items) {
              const p = toPrincipal(item);
              if (p) entries.push(p);
            }
          },
        });
        g.members = { url: listing.firstUrl, status: listing.failure?.status ?? 200, entries, pages: listing.pages };
        if (listing.failure) g.members.error = listing.failure.message;
        keepIfNotable(listing);
      }),
    ),
  );
  options.logger?.info({ groups: groups.size }, 'conformance: groups crawled');

  // Users.
  const users = new Map<string, UserRecord>();
  const usersListing = await listAll(client, {
    collection: 'users',
    kind: 'users',
    firstUrl: client.url('/v1/users'),
    keyOf: idKey,
    onItems: (items, url) => {
      for (const item of items) {
        if (!isObj(item) || typeof item.id !== 'string' || users.has(item.id)) continue;
        users.set(item.id, { id: item.id, url, email: item.primary_email_addr, fullName: item.full_name, state: item.state });
      }
    },
  });
  listings.push(usersListing);
  options.logger?.info({ users: users.size }, 'conformance: users crawled');

  return {
    baseUrl: client.baseUrl,
    startedAt,
    finishedAt: new Date().toISOString(),
    metadata,
    files: [...files.values()],
    users: [...users.values()],
    groups: [...groups.values()],
    listings,
  };
}

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
