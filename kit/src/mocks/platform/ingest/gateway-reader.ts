/**
 * The platform's connector to one gateway, over HTTP only: bearer authentication with an API key
 * or an OAuth 2.0 client-credentials token, retries of 429/503 after `Retry-After`, and the
 * `@odata.nextLink` chain followed verbatim to its end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { followNextLinks, NextLinkError } from 'content-gateway/lib';
import { parseRetryAfter } from 'content-gateway/lib';
import { idPath } from 'content-gateway/conformance';

export type GatewayAuth = { kind: 'api-key'; key: string } | { kind: 'oauth'; tokenUrl: string; clientId: string; clientSecret: string };

export interface GatewayReaderOptions {
  baseUrl: string;
  auth: GatewayAuth;
  /** Retries of one request answered 429 or 503. */
  maxRetries?: number;
  /** Longest wait honoured for one `Retry-After`. */
  maxRetryAfterMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface ReaderStats {
  requests: number;
  retries: number;
  /** Time spent waiting as `Retry-After` said. */
  waitedMs: number;
  downloads: number;
}

export class GatewayError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class GatewayReader {
  readonly baseUrl: string;
  readonly stats: ReaderStats = { requests: 0, retries: 0, waitedMs: 0, downloads: 0 };
  private token: { value: string; expiresAt: number } | undefined;

  constructor(private readonly options: GatewayReaderOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** The URL of an operation on an id, percent-encoded. */
  idUrl(prefix: '/v1/files/' | '/v1/groups/', id: string, suffix = ''): string {
    return this.url(idPath(prefix, id, suffix, false).path);
  }

  async json(url: string): Promise<Obj> {
    const res = await this.get(url, 'application/json');
    const text = await res.text();
    try {
      const body = JSON.parse(text) as unknown;
      if (!isObj(body)) throw new Error('not an object');
      return body;
    } catch (error) {
      throw new GatewayError(url, res.status, `the body is not a JSON object: ${(error as Error).message}`);
    }
  }

  async bytes(url: string): Promise<Buffer> {
    const res = await this.get(url, '*/*');
    this.stats.downloads++;
    return Buffer.from(await res.arrayBuffer());
  }

  /** Every item of a collection, page after page; `holder` finds the items in a page's body. */
  async *items(firstUrl: string, holder: (body: Obj) => unknown = (b) => b.value): AsyncGenerator<unknown> {
    const pages = followNextLinks(async (link) => {
      const url = link ?? firstUrl;
      return { url, body: await this.json(url) };
    });
    try {
      for await (const { url, body } of pages) {
        const items = holder(body);
        if (!Array.isArray(items)) throw new GatewayError(url, 200, 'the page has no item array');
        yield* items;
      }
    } catch (error) {
      if (error instanceof NextLinkError) throw new GatewayError(error.url, 200, error.problem === 'loop' ? 'the @odata.nextLink chain loops' : error.message);
      throw error;
    }
  }

  private async get(url: string, accept: string): Promise<Response> {
    const maxRetries = this.options.maxRetries ?? 5;
    for (let attempt = 0; ; attempt++) {
      this.stats.requests++;
      const res = await fetch(url, {
        headers: { accept, authorization: `Bearer ${await this.bearer()}`, 'user-agent': 'platform-simulator/1' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
      if (res.ok) return res;
      const retryable = res.status === 429 || res.status === 503;
      if (res.status === 401 && this.options.auth.kind === 'oauth' && attempt === 0) this.token = undefined;
      else if (!retryable || attempt >= maxRetries)
        throw new GatewayError(url, res.status, `GET ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer().catch(() => undefined);
      const wait = Math.min(parseRetryAfter(res.headers.get('retry-after'), new Date()) ?? 1000 * 2 ** attempt, this.options.maxRetryAfterMs ?? 60_000);
      this.stats.retries++;
      this.stats.waitedMs += wait;
      await (this.options.sleep ?? sleep)(wait);
    }
  }

  private async bearer(): Promise<string> {
    const auth = this.options.auth;
    if (auth.kind === 'api-key') return auth.key;
    if (this.token && this.token.expiresAt > Date.now() + 5_000) return this.token.value;
    const res = await fetch(auth.tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(auth.clientId)}:${encodeURIComponent(auth.clientSecret)}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (!res.ok || typeof body.access_token !== 'string') throw new GatewayError(auth.tokenUrl, res.status, `the token endpoint answered ${res.status}`);
    this.token = { value: body.access_token, expiresAt: Date.now() + (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000 };
    return this.token.value;
  }
}
