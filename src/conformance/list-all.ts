import type { ExchangeKind, ListingSummary, Principal } from './crawl-record';
import type { GatewayClient } from './gateway-client';

const MAX_NEXT_LINKS = 20_000;
const MAX_DUPLICATES = 200;
const MAX_PAGES = 1_000_000;

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/** The keys duplicates are judged by: `id`, or `TYPE id` for members and access entries. */
export const idKey = (item: unknown): string | undefined => (isObj(item) && typeof item.id === 'string' ? item.id : undefined);
export const principalKey = (item: unknown): string | undefined => (isObj(item) ? `${String(item.type)} ${String(item.id)}` : undefined);

/** A member or an access entry, its values made strings. */
export function toPrincipal(item: unknown): Principal | undefined {
  if (!isObj(item)) return undefined;
  const p: Principal = { type: typeof item.type === 'string' ? item.type : String(item.type), id: typeof item.id === 'string' ? item.id : String(item.id) };
  if (item.action !== undefined) p.action = typeof item.action === 'string' ? item.action : String(item.action);
  return p;
}
