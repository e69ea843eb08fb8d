import { RemoteError } from '../outbound-http/remote-error';
import { followNextLinks, NextLinkError } from '../lib/follow-next-links';
import { dataApiBaseUrl } from './data-api-regions';
import { nextLinkFailure } from './next-link-failure';
import { authorizationOf, type PlatformAuthConfig } from './platform-auth-config';
import { PlatformAuthError, PlatformResponseError } from './platform-error';
import { PlatformHttp, type PlatformAnswer, type PlatformClientTransport, type SendOptions } from './platform-http';
import type { OAuthTokenSource } from './oauth-token-source';

/** The Data API's entity sets (reference §7.1). */
export type DataEntity = 'conversations' | 'interactions' | 'plugin-calls' | 'plugin-resources' | 'users';

export interface DataApiClientOptions extends PlatformClientTransport {
  /** A region by name (`us`, `eu`, `ca`, `gov`, `jp`, `uk`, `us-prod4`, `us-prod3`) or an explicit base URL. */
  region?: string;
  baseUrl?: string;
  auth: PlatformAuthConfig;
  now?: () => number;
  /** Paces request starts (the Data API publishes no limit; the simulator's default is 600 a minute per caller). */
  requestsPerMinute?: number;
  signal?: AbortSignal;
}

export interface DataQuery {
  filter?: string;
  select?: readonly string[];
  orderby?: string;
  top?: number;
}

export interface DataPage<T> {
  items: T[];
  /** The `@odata.nextLink` of this page, when there is one. */
  nextLink: string | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pages one walk reads at most (the limit the shared outbound pagination had). */
const MAX_PAGES = 100_000;

/**
 * A client of the platform's Data API (reference §7.1; seed: Count plugin resources). Lists with
 * `$filter`, `$select`, `$orderby` and `$top`, then follows `@odata.nextLink` verbatim (no
 * parameters added, as the official pipeline does); counts only through
 * `/plugin-resources/$count` (the seed: `$count=true` on the list is ignored, so it is never sent).
 * A 429 waits its `Retry-After`, 5xx back off; OAuth tokens are cached and refreshed once when
 * the platform refuses one.
 */
export class DataApiClient {
  readonly baseUrl: string;
  private readonly http: PlatformHttp;
  private readonly tokens: OAuthTokenSource | undefined;

  constructor(options: DataApiClientOptions) {
    this.baseUrl = dataApiBaseUrl({
      ...(options.region !== undefined ? { region: options.region } : {}),
      ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    });
    const deps = {
      logger: options.logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    };
    const { header, tokens } = authorizationOf(options.auth, deps);
    this.tokens = tokens;
    this.http = new PlatformHttp({
      baseUrl: this.baseUrl,
      api: 'data',
      headers: async () => ({ authorization: await header() }),
      ...deps,
      ...(options.random ? { random: options.random } : {}),
      ...(options.retryPolicy ? { retryPolicy: options.retryPolicy } : {}),
      ...(options.requestsPerMinute ? { requestsPerMinute: options.requestsPerMinute } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Requests sent to the platform so far: Data API calls (retries included) and token requests. */
  get requestCount(): number {
    return this.http.requestCount + (this.tokens?.requestCount ?? 0);
  }

  /** The number of plugin resources matching `filter` (all of them without one). */
  async count(filter?: string): Promise<number> {
    const answer = await this.send('plugin-resources/$count', { query: { $filter: filter } });
    const text = answer.text.trim();
    if (!/^\d+$/.test(text))
      throw new PlatformResponseError(`The count endpoint answered ${JSON.stringify(text.slice(0, 40))}, not a number, at ${answer.url}`, {
        status: answer.status,
        url: answer.url,
      });
    return Number(text);
  }

  /** Pages of an entity set, in the platform's order, following `@odata.nextLink` until it is absent. */
  async *pages<T = Obj>(entity: DataEntity, query: DataQuery = {}): AsyncGenerator<DataPage<T>, void, undefined> {
    const first = { $filter: query.filter, $select: query.select?.join(','), $orderby: query.orderby, $top: query.top };
    const walk = followNextLinks(
      async (link) => {
        const answer = link === undefined ? await this.send(entity, { query: first }) : await this.send(link);
        return { url: link ?? answer.url, body: this.readPage(answer) };
      },
      { maxPages: MAX_PAGES },
    );
    try {
      for await (const { body } of walk) {
        const next = body['@odata.nextLink'];
        yield { items: [...(body.value as T[])], nextLink: typeof next === 'string' && next !== '' ? next : undefined };
      }
    } catch (error) {
      if (error instanceof RemoteError) throw new PlatformResponseError(error.message.replace(/^Remote/, 'Data API'), { cause: error });
      if (error instanceof NextLinkError) throw nextLinkFailure('Data API', error);
      throw error;
    }
  }

  /** Every record of an entity set matching the query. */
  async *list<T = Obj>(entity: DataEntity, query: DataQuery = {}): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages<T>(entity, query)) yield* page.items;
  }

  /** A page's body, checked to hold a `value` array. */
  private readPage(answer: PlatformAnswer): Record<string, unknown> {
    let body: unknown;
    try {
      body = JSON.parse(answer.text);
    } catch {
      body = undefined;
    }
    if (!isObj(body) || !Array.isArray(body.value))
      throw new PlatformResponseError(`The Data API answered without a value array at ${answer.url}`, { status: answer.status, url: answer.url });
    return body;
  }

  /** One request; a refused OAuth token is dropped and the request sent once more with a fresh one. */
  private async send(pathOrUrl: string, options: SendOptions = {}): Promise<PlatformAnswer> {
    try {
      return await this.http.send('GET', pathOrUrl, options);
    } catch (error) {
      if (!(error instanceof PlatformAuthError) || !this.tokens?.hasToken) throw error;
      this.tokens.invalidate();
      return this.http.send('GET', pathOrUrl, options);
    }
  }
}
