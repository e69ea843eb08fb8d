import type { Logger } from '../logging/create-logger';
import { PlatformHttp } from './platform-http';
import { PlatformResponseError } from './platform-error';

export interface OAuthClientCredentials {
  /** The platform's token endpoint, e.g. `https://<api host>/oauth/v1/token`. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Binds the token to a person (the simulator needs it to start conversations). */
  userEmail?: string;
}

export interface OAuthTokenSourceOptions {
  logger: Logger;
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Refresh this long before the token expires, so no request goes out with a token about to lapse. Default 60 s. */
  refreshSkewMs?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * OAuth 2.0 client credentials (reference §7.1): `POST <tokenUrl>` with a JSON body
 * `{client_id, client_secret, grant_type}`; the answer (flat, or under `data` as the Message
 * API's notes show) has `access_token` and `expires_in`. The token is cached until shortly before
 * it expires; concurrent callers share one request.
 */
export class OAuthTokenSource {
  private readonly http: PlatformHttp;
  private cached: { token: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly now: () => number;
  /** Tokens fetched so far (tests and the usage report count them). */
  issued = 0;

  constructor(
    private readonly credentials: OAuthClientCredentials,
    options: OAuthTokenSourceOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.refreshSkewMs = options.refreshSkewMs ?? 60_000;
    this.http = new PlatformHttp({
      baseUrl: credentials.tokenUrl,
      api: 'auth',
      logger: options.logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  }

  private readonly refreshSkewMs: number;

  get requestCount(): number {
    return this.http.requestCount;
  }

  /** A valid access token: the cached one, or a fresh one. */
  async token(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return this.cached.token;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Whether a token is cached (a refusal of a cached token is worth one more try with a fresh one). */
  get hasToken(): boolean {
    return this.cached !== undefined;
  }

  /** Forgets the cached token (after the platform refused it). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const body = {
      client_id: this.credentials.clientId,
      client_secret: this.credentials.clientSecret,
      grant_type: 'client_credentials',
      ...(this.credentials.userEmail ? { user_email: this.credentials.userEmail } : {}),
    };
    const answer = await this.http.send('POST', this.credentials.tokenUrl, { body, idempotent: true });
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      parsed = undefined;
    }
    const payload = isObj(parsed) && isObj(parsed.data) && parsed.access_token === undefined ? parsed.data : parsed;
    if (!isObj(payload) || typeof payload.access_token !== 'string' || payload.access_token === '')
      throw new PlatformResponseError(`The token endpoint answered without an access_token at ${answer.url}`, { status: answer.status, url: answer.url });
    const expiresIn = typeof payload.expires_in === 'number' && payload.expires_in > 0 ? payload.expires_in : 3600;
    this.issued += 1;
    this.cached = { token: payload.access_token, refreshAt: this.now() + Math.max(0, expiresIn * 1000 - this.refreshSkewMs) };
    return payload.access_token;
  }
}
