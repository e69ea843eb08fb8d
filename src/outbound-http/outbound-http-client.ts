import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Logger } from '../logging/create-logger';
import { RemoteError, RemoteRequestError, RemoteUnavailableError } from './remote-error';
import { abortError } from '../lib/abort-error';
import { parseRetryAfter } from '../lib/parse-retry-after';
import { redactUrl } from './redact-url';
import { DEFAULT_RETRY_POLICY, type Outcome, type RetryPolicy, backoffMs, isSafeToRepeat, shouldRetry } from './retry-policy';
import { bodySnippet, remoteErrorFromStatus } from './remote-error-from-status';
import { networkErrorCode, readSnippet } from './fetch-failures';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export type QueryValue = string | number | boolean | null | undefined;

export interface OutboundHttpClientOptions {
  /** Every relative path is appended to it; its origin is the only one that receives `headers()`. */
  baseUrl: string;
  logger: Logger;
  /** Transport; defaults to the global fetch. Tests point the client at a fake server instead. */
  fetch?: typeof fetch;
  /** Cancels in-flight requests and retry sleeps (typically the sync run's signal). */
  signal?: AbortSignal;
  /** Credentials, computed per request so a token can refresh between requests. */
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  retryPolicy?: RetryPolicy;
  /** Waits between attempts; must reject promptly when `signal` aborts. Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Clock for HTTP-date `Retry-After` values. */
  now?: () => Date;
  userAgent?: string;
  /**
   * Further origins (e.g. a download host) that absolute URLs and redirects may reach. They never
   * receive `headers()`: credentials go to the `baseUrl` origin only.
   */
  allowOrigins?: readonly string[];
  /** Per attempt, until response headers arrive; a timeout counts as a retryable `ETIMEDOUT`. Default 60 s. */
  timeoutMs?: number;
  /** Redirect hops followed per attempt, each checked against the allowed origins. Default 5. */
  maxRedirects?: number;
  /**
   * Waits before each attempt (a rate limiter, a request budget), outside the attempt's timeout;
   * must reject promptly when the signal aborts.
   */
  pace?: (signal: AbortSignal | undefined) => Promise<void>;
}

export interface OutboundRequestOptions {
  /** Added to (or replacing same-named parameters of) the URL's query. `null`/`undefined` are skipped. */
  query?: Record<string, QueryValue>;
  /** Strings, `URLSearchParams` and bytes are sent as they are; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Cancels this call only, in addition to the client's signal. */
  signal?: AbortSignal;
  /**
   * Whether repeating the request is harmless. Defaults to true for GET, HEAD, PUT, DELETE and
   * OPTIONS; non-idempotent requests are repeated only when the remote certainly did not act.
   */
  idempotent?: boolean;
}

const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The one HTTP client of every outbound call (the REST adapters, the platform clients): injected transport, logger, signal and clock;
 * retries by the pure `retry-policy` (honouring `Retry-After`); typed `RemoteError`s from
 * `remoteErrorFromStatus`; cancellation as an `AbortError`.
 *
 * Safety invariants:
 * - Only the `baseUrl` origin and `allowOrigins` are ever contacted, for absolute URLs (such as
 *   a `next_page.uri`) and redirects alike: a remote cannot send us, or our credentials, elsewhere.
 * - `headers()` (credentials) are sent to the `baseUrl` origin only.
 * - Logs carry method, origin and path, never headers or query strings.
 */
export class OutboundHttpClient {
  private readonly base: URL;
  private readonly basePrefix: string;
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly fetchImpl: typeof fetch;
  private readonly logger: Logger;
  private readonly signal: AbortSignal | undefined;
  private readonly authHeaders: OutboundHttpClientOptions['headers'];
  private readonly policy: RetryPolicy;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => Date;
  private readonly userAgent: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly pace: OutboundHttpClientOptions['pace'];
  private requests = 0;

  constructor(options: OutboundHttpClientOptions) {
    this.base = parseHttpUrl(options.baseUrl, 'baseUrl');
    this.basePrefix = `${this.base.origin}${this.base.pathname.replace(/\/+$/, '')}`;
    this.allowedOrigins = new Set([this.base.origin, ...(options.allowOrigins ?? []).map((origin) => parseHttpUrl(origin, 'allowOrigins').origin)]);
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.logger = options.logger;
    this.signal = options.signal;
    this.authHeaders = options.headers;
    this.policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    // Rejects with an AbortError as soon as the signal fires, so a cancelled sync never sits out a long Retry-After.
    this.sleep = options.sleep ?? ((ms, signal) => sleep(ms, undefined, { signal }));
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => new Date());
    this.userAgent = options.userAgent;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.pace = options.pace;
  }

  /** HTTP requests sent so far: every attempt and redirect hop (benchmarks report requests per item). */
  get requestCount(): number {
    return this.requests;
  }

  /**
   * The raw response after retries: a retryable status that outlasted the policy is returned,
   * not thrown; the caller owns (and must consume or cancel) its body. Network failures that
   * outlast the policy throw `RemoteUnavailableError`.
   */
  request(method: HttpMethod, pathOrUrl: string, options: OutboundRequestOptions = {}): Promise<Response> {
    return this.execute(method, pathOrUrl, options, 'application/json', async (response) => response);
  }

  /**
   * The parsed JSON body of a 2xx answer (`undefined` for an empty body). Any other final status
   * throws the `RemoteError` of `remoteErrorFromStatus`; a truncated body is retried like a
   * dropped connection; a 2xx body that is not JSON throws `RemoteUnavailableError`.
   */
  json<T>(method: HttpMethod, pathOrUrl: string, options: OutboundRequestOptions = {}): Promise<T> {
    return this.execute(method, pathOrUrl, options, 'application/json', async (response, url) => {
      if (!response.ok) throw await this.errorFrom(response, url);
      const text = await response.text();
      if (text.trim() === '') return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch (cause) {
        throw new RemoteUnavailableError(`Remote answered ${response.status} with a body that is not JSON for ${redactUrl(url)}: ${bodySnippet(text)}`, {
          status: response.status,
          url: redactUrl(url),
          cause,
        });
      }
    });
  }

  /**
   * A download as a Node stream. Retries happen only until a 2xx response arrives; once the body
   * starts, a failure surfaces as a stream error (the bytes cannot be replayed). A non-2xx final
   * status throws the `RemoteError` of `remoteErrorFromStatus`.
   */
  stream(pathOrUrl: string, options: OutboundRequestOptions = {}): Promise<Readable> {
    return this.execute('GET', pathOrUrl, options, '*/*', async (response, url) => {
      if (!response.ok) throw await this.errorFrom(response, url);
      if (!response.body) return Readable.from([]);
      return Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
    });
  }

  /**
   * The retry loop. `read` runs inside it, so a connection dropped while a JSON body is read is
   * retried too; errors `read` throws on purpose (RemoteErrors) are not.
   */
  private async execute<R>(
    method: HttpMethod,
    pathOrUrl: string,
    options: OutboundRequestOptions,
    accept: string,
    read: (response: Response, url: URL) => Promise<R>,
  ): Promise<R> {
    const url = this.resolve(pathOrUrl, options.query);
    const signals = [this.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    const callerSignal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const idempotent = options.idempotent ?? IDEMPOTENT_METHODS.has(method);

    for (let attempt = 1; ; attempt += 1) {
      if (callerSignal?.aborted) throw abortError(callerSignal);
      await this.paced(callerSignal);
      let outcome: Outcome;
      let failure: unknown;
      let response: Response | undefined;
      let finalUrl = url;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(timeoutReason(this.timeoutMs)), this.timeoutMs);
      try {
        const attemptSignal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;
        ({ response, url: finalUrl } = await this.fetchFollowingRedirects(method, url, options, accept, attemptSignal));
        outcome = { kind: 'response', status: response.status, retryAfter: response.headers.get('retry-after') };
      } catch (error) {
        if (callerSignal?.aborted) throw abortError(callerSignal);
        if (error instanceof RemoteError) throw error;
        failure = error;
        outcome = { kind: 'network-error', code: timeout.signal.aborted ? 'ETIMEDOUT' : networkErrorCode(error) };
      } finally {
        clearTimeout(timer);
      }

      const retry = shouldRetry(outcome, attempt, this.policy) && isSafeToRepeat(outcome, idempotent);
      if (response && !retry) {
        try {
          return await read(response, finalUrl);
        } catch (error) {
          if (callerSignal?.aborted) throw abortError(callerSignal);
          if (error instanceof RemoteError) throw error;
          // The connection dropped while the body was read: judge it like any network failure.
          failure = error;
          outcome = { kind: 'network-error', code: networkErrorCode(error) };
          if (!(shouldRetry(outcome, attempt, this.policy) && idempotent)) throw this.unreachable(method, url, outcome, attempt, failure);
        }
      } else if (!retry) {
        throw this.unreachable(method, url, outcome, attempt, failure);
      }

      await response?.body?.cancel().catch(() => undefined);
      const retryAfterMs =
        outcome.kind === 'response'
          ? (parseRetryAfter(outcome.retryAfter, this.now()) ?? (outcome.status === 429 ? this.policy.rateLimitWaitMs : undefined))
          : undefined;
      const delayMs = backoffMs(attempt, { retryAfterMs, random: this.random }, this.policy);
      this.logger.debug(
        {
          method,
          url: redactUrl(url),
          attempt,
          delayMs,
          ...(outcome.kind === 'response' ? { status: outcome.status } : { code: outcome.code }),
        },
        'outbound request failed; retrying',
      );
      try {
        await this.sleep(delayMs, callerSignal);
      } catch (error) {
        if (callerSignal?.aborted) throw abortError(callerSignal);
        throw error;
      }
    }
  }

  /** The `pace` option's wait before an attempt; a cancellation during it is the caller's AbortError. */
  private async paced(signal: AbortSignal | undefined): Promise<void> {
    if (!this.pace) return;
    try {
      await this.pace(signal);
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      throw error;
    }
  }

  /** One attempt: fetch, following redirects by hand so every hop is origin-checked. */
  private async fetchFollowingRedirects(
    method: HttpMethod,
    url: URL,
    options: OutboundRequestOptions,
    accept: string,
    signal: AbortSignal,
  ): Promise<{ response: Response; url: URL }> {
    let currentMethod = method;
    let body = encodeBody(options.body);
    let current = url;
    for (let hop = 0; ; hop += 1) {
      const headers = await this.headersFor(current, options.headers, accept, body?.contentType);
      this.requests += 1;
      const response = await this.fetchImpl(current, {
        method: currentMethod,
        headers,
        body: body?.payload,
        redirect: 'manual',
        signal,
      });
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url: current };
      await response.body?.cancel().catch(() => undefined);
      if (hop >= this.maxRedirects) {
        throw new RemoteRequestError(`Remote redirected more than ${this.maxRedirects} times from ${redactUrl(url)}`, {
          status: response.status,
          url: redactUrl(url),
        });
      }
      current = this.checkOrigin(parseLocation(location, current));
      // As fetch does: 303 becomes GET, and so does a POST answered with 301/302.
      if ((response.status === 303 && currentMethod !== 'HEAD') || ((response.status === 301 || response.status === 302) && currentMethod === 'POST')) {
        currentMethod = 'GET';
        body = undefined;
      }
    }
  }

  private async headersFor(url: URL, extra: Record<string, string> | undefined, accept: string, contentType: string | undefined): Promise<Headers> {
    const headers = new Headers({ accept });
    if (this.userAgent !== undefined) headers.set('user-agent', this.userAgent);
    if (contentType !== undefined) headers.set('content-type', contentType);
    if (this.authHeaders && url.origin === this.base.origin) {
      for (const [name, value] of Object.entries(await this.authHeaders())) headers.set(name, value);
    }
    for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
    return headers;
  }

  /** Relative paths (and `next_page.path`-style paths with a query) are appended to `baseUrl`. */
  private resolve(pathOrUrl: string, query: OutboundRequestOptions['query']): URL {
    let url: URL;
    if (/^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(pathOrUrl) || /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl)) {
      url = this.checkOrigin(parseLocation(pathOrUrl, this.base));
    } else {
      url = new URL(`${this.basePrefix}/${pathOrUrl.replace(/^\/+/, '')}`);
    }
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== null && value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  private checkOrigin(url: URL): URL {
    if ((url.protocol === 'http:' || url.protocol === 'https:') && this.allowedOrigins.has(url.origin)) return url;
    throw new RemoteRequestError(`Refusing to contact ${redactUrl(url)}: its origin is neither the base URL's (${this.base.origin}) nor in allowOrigins`, {
      url: redactUrl(url),
    });
  }

  private async errorFrom(response: Response, url: URL): Promise<RemoteError> {
    const body = await readSnippet(response);
    return remoteErrorFromStatus(response.status, {
      url,
      body,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), this.now()),
    });
  }

  private unreachable(method: HttpMethod, url: URL, outcome: Outcome, attempts: number, cause: unknown): RemoteUnavailableError {
    const code = outcome.kind === 'network-error' ? (outcome.code ?? 'unknown error') : `status ${outcome.status}`;
    return new RemoteUnavailableError(`Remote request ${method} ${redactUrl(url)} failed (${code}) after ${attempts} attempt${attempts === 1 ? '' : 's'}`, {
      url: redactUrl(url),
      cause,
    });
  }
}

function parseHttpUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${what} must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${what} must be an absolute http(s) URL`);
  return url;
}

function parseLocation(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch (cause) {
    throw new RemoteRequestError(`Remote gave an unparseable URL`, { cause });
  }
}

function encodeBody(body: unknown): { payload: string | URLSearchParams | Uint8Array; contentType?: string } | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams || body instanceof Uint8Array) return { payload: body };
  return { payload: JSON.stringify(body), contentType: 'application/json' };
}

function timeoutReason(ms: number): Error {
  return Object.assign(new Error(`No response headers within ${ms} ms`), { name: 'TimeoutError', code: 'ETIMEDOUT' });
}
