import type { Logger } from '../../logging/create-logger';
import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type {
  CrawlRecord,
  ExchangeKind,
  FileDetail,
  FileDownload,
  FileListing,
  FilePermissions,
  FileSummary,
  GroupRecord,
  ListingSummary,
  Principal,
  UserRecord,
} from './crawl-record';
import { toFileListing } from './file-listing';
import type { GatewayClient, GatewayResponse } from './gateway-client';
import { idKey, isObj, listAll, principalKey, toPrincipal } from './list-all';

/** Member and permission listings kept in the record beyond the top-level ones (only notable ones). */
const MAX_NOTABLE_LISTINGS = 1000;
/** Pages longer than this are worth keeping (the platform asks for 1,000–5,000 members a page). */
export const LARGE_PAGE = 5000;

export interface CrawlOptions {
  /** Files (and groups) being read at once; requests in flight are capped by the client. */
  concurrency: number;
  logger?: Logger;
  /** Skip `/download` (answers from a quick crawl, e.g. `who-can-see`). */
  skipDownloads?: boolean;
}

/** What the crawl has gathered so far, handed from phase to phase. */
interface CrawlState {
  client: GatewayClient;
  options: CrawlOptions;
  /** Files (then groups) being read at once. */
  pool: ConcurrencyPool;
  /** The top-level listings, and the notable member and permission ones, in the order read. */
  listings: ListingSummary[];
  /** Member and permission listings kept so far (at most MAX_NOTABLE_LISTINGS). */
  notable: number;
  files: Map<string, FileSummary>;
  groups: Map<string, GroupRecord>;
  users: Map<string, UserRecord>;
}

/** A member or permission listing is kept when it pages, is large, repeats, loops or fails. */
function keepIfNotable(state: CrawlState, l: ListingSummary): void {
  if ((l.pages > 1 || l.maxPageItems > LARGE_PAGE || l.duplicates.length || l.loop || l.failure) && state.notable < MAX_NOTABLE_LISTINGS) {
    state.notable++;
    state.listings.push(l);
  }
}

function header(res: GatewayResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function isBinary(listing: FileListing): boolean {
  return typeof listing.mimeType === 'string' && listing.mimeType.toLowerCase() !== 'text/html';
}

/** The permission model (`/v1/files/permissions/metadata`). */
async function crawlPermissionModel(client: GatewayClient): Promise<CrawlRecord['metadata']> {
  const metadataUrl = client.url('/v1/files/permissions/metadata');
  const meta = await client.get(metadataUrl, { kind: 'metadata', mode: 'json' });
  const metadata: CrawlRecord['metadata'] = { url: metadataUrl, status: meta.status };
  if (isObj(meta.json)) metadata.model = meta.json.model;
  if (meta.error ?? meta.jsonError) metadata.error = meta.error ?? meta.jsonError;
  return metadata;
}

/** An access list or a group's members, paged to the end (kept in the record when notable). */
async function listPrincipals(
  state: CrawlState,
  collection: string,
  kind: ExchangeKind,
  page: { url: string; contractPath: string },
  permissions: boolean,
): Promise<FilePermissions> {
  const entries: Principal[] = [];
  const listing = await listAll(state.client, {
    collection,
    kind,
    firstUrl: page.url,
    firstContractPath: page.contractPath,
    ...(permissions ? { permissions: true } : {}),
    keyOf: principalKey,
    onItems: (items) => {
      for (const item of items) {
        const p = toPrincipal(item);
        if (p) entries.push(p);
      }
    },
  });
  const out: FilePermissions = { url: listing.firstUrl, status: listing.failure?.status ?? 200, entries, pages: listing.pages };
  if (listing.failure) out.error = listing.failure.message;
  keepIfNotable(state, listing);
  return out;
}

/** `/v1/files/{id}`: what the detail says about the file. */
async function readDetail(client: GatewayClient, id: string): Promise<FileDetail> {
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
  return d;
}

/** `/v1/files/{id}/download`, hashed as it streams: its headers, its bytes and their hashes. */
async function readDownload(client: GatewayClient, id: string): Promise<FileDownload> {
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
  return d;
}

/** One active file: its detail, then (a binary) its download; its access list alongside. */
async function readFile(state: CrawlState, summary: FileSummary): Promise<void> {
  const { client, options } = state;
  const id = summary.listing.id;
  const detailThenDownload = async () => {
    summary.detail = await readDetail(client, id);
    if (isBinary(summary.listing) && !options.skipDownloads) summary.download = await readDownload(client, id);
  };
  const access = async () => {
    summary.permissions = await listPrincipals(state, `permissions:${id}`, 'permissions', client.idUrl('/v1/files/', id, '/permissions'), true);
  };
  await Promise.all([detailThenDownload(), access()]);
}

/** Every file (following nextLinks), each active one read while the listing goes on. */
async function crawlFiles(state: CrawlState): Promise<void> {
  const { client, options, pool, files } = state;
  const queueLimit = options.concurrency * 10;
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
        pool.run(() => readFile(state, summary)).catch((error: unknown) => failures.push(error));
      }
    },
  });
  state.listings.push(filesListing);
  await pool.idle();
  if (failures.length) throw failures[0];
  options.logger?.info({ files: files.size, pages: filesListing.pages }, 'conformance: files crawled');
}

/** `/v1/groups` or `/v1/users` to the end: each item with a string id kept once, as `toRecord` makes it. */
async function listIdentities<T>(
  state: CrawlState,
  collection: 'groups' | 'users',
  into: Map<string, T>,
  toRecord: (item: Record<string, unknown>, id: string, url: string) => T,
): Promise<void> {
  const listing = await listAll(state.client, {
    collection,
    kind: collection,
    firstUrl: state.client.url(`/v1/${collection}`),
    keyOf: idKey,
    onItems: (items, url) => {
      for (const item of items) {
        if (!isObj(item) || typeof item.id !== 'string' || into.has(item.id)) continue;
        into.set(item.id, toRecord(item, item.id, url));
      }
    },
  });
  state.listings.push(listing);
}

/** Every group, then each one's direct members. */
async function crawlGroups(state: CrawlState): Promise<void> {
  const { client, pool, groups } = state;
  await listIdentities(state, 'groups', groups, (item, id, url) => ({ id, url, name: item.name }));
  await Promise.all(
    [...groups.values()].map((g) =>
      pool.run(async () => {
        g.members = await listPrincipals(state, `members:${g.id}`, 'members', client.idUrl('/v1/groups/', g.id, '/members'), false);
      }),
    ),
  );
  state.options.logger?.info({ groups: groups.size }, 'conformance: groups crawled');
}

/** Every user. */
async function crawlUsers(state: CrawlState): Promise<void> {
  await listIdentities(state, 'users', state.users, (item, id, url) => ({
    id,
    url,
    email: item.primary_email_addr,
    fullName: item.full_name,
    state: item.state,
  }));
  state.options.logger?.info({ users: state.users.size }, 'conformance: users crawled');
}

/**
 * Crawls a gateway the way the platform does: the permission model; every file (following
 * nextLinks), each active file's metadata (`/v1/files/{id}`), its binary (hashed as it streams)
 * and its access list (paged); every group and its direct members (paged); every user. Keeps only
 * per-file summaries.
 */
export async function crawlGateway(client: GatewayClient, options: CrawlOptions): Promise<CrawlRecord> {
  const startedAt = new Date().toISOString();
  const state: CrawlState = {
    client,
    options,
    pool: new ConcurrencyPool(options.concurrency),
    listings: [],
    notable: 0,
    files: new Map(),
    groups: new Map(),
    users: new Map(),
  };
  const metadata = await crawlPermissionModel(client);
  await crawlFiles(state);
  await crawlGroups(state);
  await crawlUsers(state);
  return {
    baseUrl: client.baseUrl,
    startedAt,
    finishedAt: new Date().toISOString(),
    metadata,
    files: [...state.files.values()],
    users: [...state.users.values()],
    groups: [...state.groups.values()],
    listings: state.listings,
  };
}
