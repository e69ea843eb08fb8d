import type { RetryPolicy } from '../../outbound-http/retry-policy';
import type { Logger } from '../../logging/create-logger';
import { OutboundHttpClient } from '../../outbound-http/outbound-http-client';
import { SourceAuthError } from '../source-error';
import { selectPath } from './rest-expressions';
import { resolveText, resolveTextMap } from './rest-env';
import { hookFunction, type RestAuthenticatorHookFactory, type RestHookContext } from './rest-hooks';
import type { Authenticator, Inject } from './rest-manifest';

type Env = Readonly<Record<string, string | undefined>>;

/** Credentials for requests to the manifest's `url_base`: headers and query parameters, and a way to drop a stale token. */
export interface RestAuth {
  headers(): Promise<Record<string, string>>;
  query(): Promise<Record<string, string>>;
  /** Forgets a fetched token after a 401; true when the next request gets a fresh one (worth one retry). */
  invalidate(): boolean;
  /** Requests the authenticator itself sent (logins, token requests). */
  readonly requests: number;
}

/** Where a token goes: by default `Authorization: Bearer <token>`. */
const BEARER: Inject = { in: 'header', name: 'Authorization', prefix: 'Bearer ' };

function injected(inject: Inject, value: string, where: 'header' | 'query'): Record<string, string> {
  return inject.in === where ? { [inject.name]: `${inject.prefix ?? ''}${value}` } : {};
}

function staticAuth(inject: Inject, value: string): RestAuth {
  return {
    headers: async () => injected(inject, value, 'header'),
    query: async () => injected(inject, value, 'query'),
    invalidate: () => false,
    requests: 0,
  };
}

interface Token {
  value: string;
  /** Epoch ms after which it is fetched again (30 s before the remote said it expires). */
  renewAt: number;
}

/**
 * A token fetched on first use and cached: a session login's or an OAuth 2.0 client-credentials
 * grant's. One fetch at a time; `invalidate` (after a 401) makes the next request fetch anew.
 */
class FetchedTokenAuth implements RestAuth {
  private token: Token | undefined;
  private pending: Promise<Token> | undefined;
  private fetched = 0;

  constructor(
    private readonly inject: Inject,
    private readonly fetchToken: () => Promise<Token>,
    private readonly now: () => number,
  ) {}

  get requests(): number {
    return this.fetched;
  }

  private async current(): Promise<string> {
    if (this.token && this.now() < this.token.renewAt) return this.token.value;
    this.pending ??= this.fetchToken().finally(() => (this.pending = undefined));
    this.fetched += 1;
    this.token = await this.pending;
    return this.token.value;
  }

  async headers(): Promise<Record<string, string>> {
    return injected(this.inject, await this.current(), 'header');
  }

  async query(): Promise<Record<string, string>> {
    return injected(this.inject, await this.current(), 'query');
  }

  invalidate(): boolean {
    this.token = undefined;
    return true;
  }
}

function tokenFrom(body: unknown, tokenPath: string, expiresPath: string, now: number, what: string): Token {
  const value = selectPath(body, tokenPath);
  if (typeof value !== 'string' || value === '') throw new SourceAuthError(`${what} answered without a token at "${tokenPath}"`);
  const expiresIn = Number(selectPath(body, expiresPath));
  const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 3_600_000;
  return { value, renewAt: now + Math.max(lifetimeMs - 30_000, lifetimeMs / 2) };
}

/** The manifest's authenticator hook, given the run's context: an environment lookup and a fetch confined to `url_base`'s origin. */
function hookAuth(spec: Authenticator, deps: AuthDeps): RestAuth {
  const base = new URL(deps.baseUrl);
  const prefix = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
  const inner = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let requests = 0;
  const ctx: RestHookContext = {
    baseUrl: deps.baseUrl,
    signal: deps.signal,
    env: (name) => resolveText({ env: name }, deps.env, `requester.authenticator (hook ${spec.export ?? ''})`),
    fetch: async (pathOrUrl, init) => {
      const url = /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) ? new URL(pathOrUrl) : new URL(`${prefix}/${pathOrUrl.replace(/^\/+/, '')}`);
      if (url.origin !== base.origin) throw new SourceAuthError(`The authenticator hook may only reach ${base.origin}, not ${url.origin}`);
      requests += 1;
      await deps.pace?.(deps.signal);
      return inner(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deps.signal]) : deps.signal, redirect: 'error' });
    },
  };
  const hook = hookFunction<RestAuthenticatorHookFactory>(spec)(ctx);
  const wrap = async (part: 'headers' | 'query'): Promise<Record<string, string>> => {
    try {
      return { ...((await hook[part]?.()) ?? {}) };
    } catch (error) {
      throw new SourceAuthError(`The authenticator hook ${spec.export ?? ''} failed: ${(error as Error).message}`);
    }
  };
  return {
    headers: () => wrap('headers'),
    query: () => wrap('query'),
    invalidate: () => hook.invalidate?.() === true,
    get requests() {
      return requests;
    },
  };
}

export interface AuthDeps {
  env: Env;
  baseUrl: string;
  logger: Logger;
  signal: AbortSignal;
  fetch?: typeof fetch;
  retryPolicy?: RetryPolicy;
  /** Waits before each request (the run's rate limits and budget). */
  pace?: (signal: AbortSignal | undefined) => Promise<void>;
  now?: () => number;
}

/** The manifest's authenticator, its secrets read from the environment (never logged, never in a message). */
export function createRestAuth(spec: Authenticator | undefined, deps: AuthDeps): RestAuth {
  const at = 'requester.authenticator';
  const { env } = deps;
  const now = deps.now ?? Date.now;
  if (!spec || spec.type === 'none') return { headers: async () => ({}), query: async () => ({}), invalidate: () => false, requests: 0 };
  if (spec.type === 'hook') return hookAuth(spec, deps);
  if (spec.type === 'api_key') return staticAuth(spec.inject!, resolveText(spec.api_key!, env, `${at}.api_key`));
  if (spec.type === 'bearer') return staticAuth(spec.inject ?? BEARER, resolveText(spec.token!, env, `${at}.token`));
  if (spec.type === 'basic') {
    const pair = `${resolveText(spec.username!, env, `${at}.username`)}:${resolveText(spec.password!, env, `${at}.password`)}`;
    return staticAuth({ in: 'header', name: 'Authorization', prefix: 'Basic ' }, Buffer.from(pair, 'utf8').toString('base64'));
  }
  const client = (baseUrl: string) =>
    new OutboundHttpClient({
      baseUrl,
      logger: deps.logger,
      signal: deps.signal,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.pace ? { pace: deps.pace } : {}),
      ...(deps.retryPolicy ? { retryPolicy: deps.retryPolicy } : {}),
    });
  if (spec.type === 'session') {
    const login = spec.login!;
    const http = client(deps.baseUrl);
    const body = resolveTextMap(login.request_body, env, `${at}.login.request_body`);
    const headers = resolveTextMap(login.request_headers, env, `${at}.login.request_headers`);
    return new FetchedTokenAuth(
      login.inject ?? BEARER,
      async () => {
        const method = login.http_method ?? 'POST';
        const reply = await http.json<unknown>(method, login.path, { headers, ...(method === 'POST' ? { body, idempotent: true } : { query: body }) });
        return tokenFrom(reply, login.token_path, login.expires_in_path ?? 'expires_in', now(), 'The session login');
      },
      now,
    );
  }
  return oauthAuth(spec, deps, client);
}

/**
 * OAuth 2.0: a client-credentials grant, or a refresh-token grant (a rotated refresh token the
 * server returns replaces the old one for this process; such a grant is not repeated blindly, since
 * the server may have spent the old token).
 */
function oauthAuth(spec: Authenticator, deps: AuthDeps, client: (baseUrl: string) => OutboundHttpClient): RestAuth {
  const at = 'requester.authenticator';
  const { env } = deps;
  const now = deps.now ?? Date.now;
  const tokenUrl = resolveText(spec.token_url!, env, `${at}.token_url`);
  const http = client(tokenUrl);
  const fields: Record<string, string> = {
    client_id: resolveText(spec.client_id!, env, `${at}.client_id`),
    ...(spec.client_secret ? { client_secret: resolveText(spec.client_secret, env, `${at}.client_secret`) } : {}),
    ...(spec.scope ? { scope: spec.scope } : {}),
  };
  let refreshToken = spec.type === 'oauth2_refresh_token' ? resolveText(spec.refresh_token!, env, `${at}.refresh_token`) : undefined;
  return new FetchedTokenAuth(
    spec.inject ?? BEARER,
    async () => {
      const grant: Record<string, string> =
        refreshToken === undefined ? { grant_type: 'client_credentials' } : { grant_type: 'refresh_token', refresh_token: refreshToken };
      const reply = await http.json<unknown>('POST', tokenUrl, {
        body: new URLSearchParams({ ...grant, ...fields }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        idempotent: refreshToken === undefined,
      });
      const rotated = selectPath(reply, 'refresh_token');
      if (refreshToken !== undefined && typeof rotated === 'string' && rotated !== '') refreshToken = rotated;
      return tokenFrom(reply, 'access_token', 'expires_in', now(), 'The OAuth token endpoint');
    },
    now,
  );
}
