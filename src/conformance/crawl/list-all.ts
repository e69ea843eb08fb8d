import type { ExchangeKind, ListingSummary, Principal } from './crawl-record';
import { followNextLinks, NextLinkError, type ODataPage } from '../../lib/follow-next-links';
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
 * Follows a collection through its `@odata.nextLink`s to the end, as the platform does (see
 * lib/follow-next-links: verbatim, a relative link resolved so the crawl can go on and flagged
 * later, a link already visited stops it), recording what it saw instead of throwing.
 */
export async function listAll(client: GatewayClient, r: ListRequest): Promise<ListingSummary> {
  const summary: ListingSummary = { collection: r.collection, firstUrl: r.firstUrl, pages: 0, items: 0, maxPageItems: 0, nextLinks: [], duplicates: [] };
  if (r.requestedTop !== undefined) summary.requestedTop = r.requestedTop;
  const seen = new Set<string>();
  let url = r.firstUrl;
  const fetchPage = async (link: string | undefined): Promise<ODataPage> => {
    url = link ?? r.firstUrl;
    const contractPath = link === undefined ? r.firstContractPath : undefined;
    const res = await client.get(url, { kind: r.kind, mode: 'json', ...(contractPath ? { contractPath } : {}) });
    if (res.status !== 200) throw new PageFailure({ url, status: res.status, message: res.error ?? `HTTP ${res.status}` });
    if (res.jsonError !== undefined || !isObj(res.json))
      throw new PageFailure({ url, status: res.status, message: res.jsonError ?? 'the body is not a JSON object' });
    return { url, body: res.json };
  };
  try {
    for await (const { body } of followNextLinks(fetchPage, { maxPages: r.maxPages ?? MAX_PAGES })) {
      const holder = r.permissions ? body.value : body;
      const items = isObj(holder) ? (r.permissions ? holder.permissions : holder.value) : undefined;
      if (!Array.isArray(items)) {
        summary.failure = { url, status: 200, message: r.permissions ? 'value.permissions is not an array' : 'value is not an array' };
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
      if (typeof next === 'string' && next !== '' && summary.nextLinks.length < MAX_NEXT_LINKS) summary.nextLinks.push(next);
    }
  } catch (error) {
    if (error instanceof PageFailure) summary.failure = error.failure;
    else if (!(error instanceof NextLinkError)) throw error;
    else if (error.problem === 'loop') summary.loop = { url: error.url };
    else if (error.problem === 'too-many-pages') summary.failure = { url: error.url, status: 0, message: error.message };
    else summary.failure = { url, status: 200, message: error.message };
  }
  return summary;
}

/** A page the crawl cannot read on (an error status, a body that is not a JSON object). */
class PageFailure extends Error {
  constructor(readonly failure: NonNullable<ListingSummary['failure']>) {
    super(failure.message);
  }
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
