import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the API announces its budget: GitHub-style `X-RateLimit-*`, the IETF draft's `RateLimit-*` fields, or its structured `RateLimit` field. */
export type RateLimitStyle = 'x-ratelimit' | 'ratelimit-fields' | 'ratelimit-structured' | 'none';

export interface RateLimitedApi {
  url: string;
  /** Requests answered 429 because the window's budget was spent. */
  refused: number;
  /** Requests answered with records. */
  served: number;
  close(): Promise<void>;
}

const ITEMS = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, title: `Item ${id}` }));

/**
 * A REST API on 127.0.0.1:0 with a budget of `perWindow` requests per fixed window of `windowMs`,
 * announced on every answer in the given style; past it, 429 with `Retry-After` (delta seconds).
 * `/items?offset=n` lists one item a page. `/dated` answers its first request 429 with a
 * `Retry-After` HTTP date and refuses every request before that date.
 */
export async function startRateLimitedApi(style: RateLimitStyle, perWindow = 2, windowMs = 1000): Promise<RateLimitedApi> {
  let windowStart = Date.now();
  let spent = 0;
  let datedUntil: number | undefined;
  const api: RateLimitedApi = { url: '', refused: 0, served: 0, close: () => new Promise((resolve) => server.close(() => resolve())) };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', api.url);
    const now = Date.now();
    if (url.pathname === '/dated') {
      if (datedUntil === undefined || now < datedUntil) {
        // A whole second at least two seconds ahead: HTTP dates have a resolution of one second.
        datedUntil ??= Math.ceil((now + 1500) / 1000) * 1000;
        api.refused += 1;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': new Date(datedUntil).toUTCString() });
        return res.end('{"error":"slow down"}');
      }
      api.served += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ items: ITEMS }));
    }
    if (now - windowStart >= windowMs) {
      windowStart = now;
      spent = 0;
    }
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    spent += 1;
    const remaining = Math.max(0, perWindow - spent);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (style === 'x-ratelimit')
      Object.assign(headers, { 'x-ratelimit-limit': String(perWindow), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(resetSeconds) });
    if (style === 'ratelimit-fields')
      Object.assign(headers, { 'ratelimit-limit': String(perWindow), 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(resetSeconds) });
    if (style === 'ratelimit-structured')
      Object.assign(headers, { ratelimit: `"default";r=${remaining};t=${resetSeconds}`, 'ratelimit-policy': `"default";q=${perWindow};w=1` });
    if (spent > perWindow) {
      api.refused += 1;
      res.writeHead(429, { ...headers, 'retry-after': String(resetSeconds) });
      return res.end('{"error":"rate limit exceeded"}');
    }
    api.served += 1;
    const offset = Number(url.searchParams.get('offset') ?? 0);
    res.writeHead(200, headers);
    res.end(JSON.stringify({ items: ITEMS.slice(offset, offset + 1) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

export const RATE_LIMITED_ITEMS = ITEMS.map((i) => i.id);
