import { RateLimiterMemory, RateLimiterQueue } from 'rate-limiter-flexible';
import { redactUrl } from '../outbound-http/redact-url';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../outbound-http/retry-policy';
import { OutboundHttpClient, type HttpMethod, type QueryValue } from '../outbound-http/outbound-http-client';
import { RemoteError } from '../outbound-http/remote-error';
import type { Logger } from '../logging/create-logger';
import { pickDefined } from '../lib/pick-defined';
import { LifecycleNotices } from './lifecycle-notices';
import { platformErrorFromResponse, type PlatformApi } from './platform-error-from-response';
import { PlatformError, PlatformRequestError, PlatformUnavailableError } from './platform-error';

export interface PlatformHttpOptions {
  /** Origin and path prefix every relative path is appended to; absolute URLs must share its origin. */
  baseUrl: string;
  api: PlatformApi;
  logger: Logger;
  /** Transport; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Credentials per request (a cached token may refresh between requests). */
  headers?: () => Record<string, string> | Promise<Record<string, string>>;
  retryPolicy?: RetryPolicy;
  /** Waits between attempts (429 `Retry-After`, 5xx backoff); tests move a simulated clock instead. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /** Paces request starts to at most this many a minute (0 or absent: no pacing). */
  requestsPerMinute?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What every platform client takes beside its own settings: logging, transport, retries and pacing. */
export type PlatformClientTransport = Pick<PlatformHttpOptions, 'logger' | 'fetch' | 'sleep' | 'random' | 'retryPolicy' | 'requestsPerMinute'>;

export interface SendOptions {
  query?: Record<string, QueryValue>;
  body?: unknown;
  headers?: Record<string, string>;
  idempotent?: boolean;
}

export interface PlatformAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The URL that answered, without its query. */
  url: string;
}

/**
 * The official Data API pipeline's schedule (reference §7.1): a 429 waits its `Retry-After`, or
 * 60 s without one (the pipeline's wait, and the Message API's guidance, §7.3: the platform
 * documents no `Retry-After`, and a backoff of seconds would spend every retry inside the same
 * minute); 5xx back off exponentially from 1 s up to 16 s, five retries.
 */
export const PLATFORM_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  ...DEFAULT_RETRY_POLICY,
  maxAttempts: 6,
  baseDelayMs: 1000,
  maxDelayMs: 16_000,
  maxRetryAfterMs: 120_000,
  rateLimitWaitMs: 60_000,
});

/** A limiter that spreads `perMinute` request starts evenly, second by second, never bursting a whole minute's quota. */
function pacer(perMinute: number): RateLimiterQueue {
  const perSecond = perMinute >= 60 ? Math.floor(perMinute / 60) : 1;
  const duration = perMinute >= 60 ? 1 : Math.ceil(60 / perMinute);
  return new RateLimiterQueue(new RateLimiterMemory({ points: perSecond, duration }));
}

/**
 * One platform API over HTTP: the shared outbound HTTP client (injected fetch, retries honouring
 * `Retry-After`, origin checks, request counting) plus pacing and the platform's typed errors.
 */
export class PlatformHttp {
  private readonly http: OutboundHttpClient;
  private readonly notices: LifecycleNotices;
  readonly api: PlatformApi;

  constructor(options: PlatformHttpOptions) {
    this.api = options.api;
    this.notices = new LifecycleNotices(options.logger, options.api);
    const transport = options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));
    const queue = options.requestsPerMinute && options.requestsPerMinute > 0 ? pacer(options.requestsPerMinute) : undefined;
    const paced: typeof fetch = queue
      ? async (input, init) => {
          await queue.removeTokens(1);
          return transport(input, init);
        }
      : transport;
    this.http = new OutboundHttpClient({
      baseUrl: options.baseUrl,
      logger: options.logger,
      fetch: paced,
      retryPolicy: options.retryPolicy ?? PLATFORM_RETRY_POLICY,
      userAgent: 'content-gateway platform client',
      ...pickDefined(options, ['headers', 'sleep', 'random', 'signal']),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  /** Requests sent so far, every retry included. */
  get requestCount(): number {
    return this.http.requestCount;
  }

  /** The 2xx answer (body read), or the typed error of the final answer. */
  async send(method: HttpMethod, pathOrUrl: string, options: SendOptions = {}): Promise<PlatformAnswer> {
    let response: Response;
    try {
      response = await this.http.request(method, pathOrUrl, options);
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      // The credentials callback failed (the token endpoint refused): that error, not a network one.
      if (error.details.cause instanceof PlatformError) throw error.details.cause;
      const Type = error.details.status === undefined || error.details.status >= 500 ? PlatformUnavailableError : PlatformRequestError;
      throw new Type(error.message.replace(/^Remote/, 'The platform'), { ...(error.details.url ? { url: error.details.url } : {}), cause: error });
    }
    const text = await response.text();
    const url = response.url || pathOrUrl;
    if (!response.ok) throw platformErrorFromResponse(this.api, response.status, url, text);
    this.notices.check(method, url, response.headers);
    return { status: response.status, headers: response.headers, text, url: redactUrl(url) };
  }
}
