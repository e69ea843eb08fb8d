/**
 * Offset pagination (reference §2): `limit` 1–100; `offset` an opaque token that only the service
 * issues, tied to the query it came from and expiring (15 minutes by default); `next_page`
 * `{offset, path, uri}` or null on the last page, present only when the request paged.
 * Tokens are JWT-shaped (HS256), as the real ones are; the position survives inserts and
 * deletes because it remembers the last gid served, not only an index.
 */
import crypto from 'node:crypto';
import { SignedTokens } from '../signed-tokens';
import { badRequest } from './api-error';
import type { ApiRequest } from './api-request';

export const INVALID_OFFSET = 'offset: Your pagination token is invalid.';
export const TOO_LARGE = 'The result is too large. You should use pagination (may require specifying a workspace)!';
/** Grandfathered endpoints answer unpaginated requests up to this many items. */
export const UNPAGED_CAP = 1000;

export interface NextPage {
  offset: string;
  path: string;
  uri: string;
}

const QUERY_IGNORED = new Set(['offset', 'limit', 'opt_fields', 'opt_pretty', 'opt_expand']);

export class PageTokens extends SignedTokens {
  issue(queryKey: string, index: number, lastGid: string): string {
    const iat = Math.floor(this.now() / 1000);
    const header = b64({ typ: 'JWT', alg: 'HS256' });
    const payload = b64({ border_rank: `${index}:${lastGid}`, q: queryKey, iat, exp: iat + Math.ceil(this.ttlMs() / 1000), ms: this.now() });
    return `${header}.${payload}.${this.sign(`${header}.${payload}`)}`;
  }

  /** Where the next page starts; throws 400 for a forged, foreign or expired token. */
  verify(token: string, queryKey: string): { index: number; lastGid: string } {
    const parts = token.split('.');
    if (parts.length !== 3) throw badRequest(INVALID_OFFSET);
    const [header, payload, sig] = parts as [string, string, string];
    const expected = this.sign(`${header}.${payload}`);
    if (!this.signatureMatches(sig, expected)) throw badRequest(INVALID_OFFSET);
    let claims: { border_rank?: unknown; q?: unknown; ms?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      throw badRequest(INVALID_OFFSET);
    }
    if (claims.q !== queryKey || typeof claims.border_rank !== 'string' || typeof claims.ms !== 'number') throw badRequest(INVALID_OFFSET);
    if (this.now() - claims.ms > this.ttlMs()) throw badRequest(INVALID_OFFSET);
    const [index, lastGid] = claims.border_rank.split(':');
    const i = Number(index);
    if (!Number.isInteger(i) || i < 0 || !lastGid) throw badRequest(INVALID_OFFSET);
    return { index: i, lastGid };
  }

  private sign(input: string): string {
    return this.hmac(input);
  }
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Identifies a listing: method, path and every query parameter except the paging ones. */
export function queryKey(req: ApiRequest): string {
  const entries = Object.entries(req.query)
    .filter(([k]) => !QUERY_IGNORED.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return crypto
    .createHash('sha256')
    .update(JSON.stringify([req.method, req.path, entries]))
    .digest('base64url')
    .slice(0, 22);
}

export function parseLimit(req: ApiRequest): number | undefined {
  const raw = req.query.limit;
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < 1 || n > 100) throw badRequest('limit: Must be an integer between 1 and 100');
  return n;
}

export interface Page<T> {
  items: T[];
  /** undefined: the request did not page, so the response has no `next_page` member. */
  nextPage: NextPage | null | undefined;
}

/**
 * One page of `items` (already filtered and ordered). Without `limit` and `offset` the whole list
 * comes back, or 400 "too large" beyond `unpagedCap` items.
 */
export function paginate<T>(
  req: ApiRequest,
  tokens: PageTokens,
  items: readonly T[],
  gidOf: (item: T) => string,
  options: { unpagedCap?: number } = {},
): Page<T> {
  const limit = parseLimit(req);
  const offset = req.query.offset;
  if (limit === undefined && offset === undefined) {
    const cap = options.unpagedCap ?? UNPAGED_CAP;
    if (items.length > cap) throw badRequest(TOO_LARGE);
    return { items: items.slice(), nextPage: undefined };
  }
  const size = limit ?? 100;
  const key = queryKey(req);
  let start = 0;
  if (offset !== undefined) {
    const { index, lastGid } = tokens.verify(offset, key);
    // Resume after the last item served; if the list shifted, find that item again.
    const before = items[index - 1];
    if (before !== undefined && gidOf(before) === lastGid) start = index;
    else {
      const found = items.findIndex((it) => gidOf(it) === lastGid);
      start = found >= 0 ? found + 1 : Math.min(index, items.length);
    }
  }
  const page = items.slice(start, start + size);
  const end = start + page.length;
  if (end >= items.length || page.length === 0) return { items: page, nextPage: null };
  const token = tokens.issue(key, end, gidOf(page[page.length - 1] as T));
  const path = nextPath(req, token, size);
  return { items: page, nextPage: { offset: token, path, uri: `${req.apiBase}${path}` } };
}

/** The relative path of the next page: the request's query with `limit` (when given) and the new `offset`. */
export function nextPath(req: ApiRequest, token: string, limit: number | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) if (k !== 'offset' && k !== 'limit') params.append(k, v);
  if (limit !== undefined) params.append('limit', String(limit));
  params.append('offset', token);
  return `${req.path}?${params.toString()}`;
}
