import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../logging/create-logger';
import { readSnippet } from '../../outbound-http/fetch-failures';
import { OutboundHttpClient, type QueryValue } from '../../outbound-http/outbound-http-client';
import { remoteErrorFromStatus } from '../../outbound-http/remote-error-from-status';
import { backoffMs, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../outbound-http/retry-policy';
import { parseRetryAfter } from '../../lib/parse-retry-after';
import { FullRunRequired, SourceAuthError, SourceRequestError, SourceUnavailableError } from '../source-error';
import type { RequestBudget } from './request-budget';
import { RequestGate } from './request-gate';
import { RestBatcher } from './rest-batcher';
import { createRestAuth, type RestAuth } from './rest-auth';
import { resolveDeep, resolveText, resolveTextMap } from './rest-env';
import type { Expressions } from './rest-expressions';
import { selectPath } from './rest-expressions';
import type { ErrorHandler, RestManifest, Requester, ResponseFilter } from './rest-manifest';

/** A 2xx answer (or one a rule let through): its headers and JSON body. */
export interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Where one page is: the requester's path (with these query parameters), or a URL the previous page gave. */
export interface PageTarget {
  query?: Record<string, QueryValue>;
  url?: string;
}

export interface RequesterDeps {
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  signal: AbortSignal;
  expressions: Expressions;
  fetch?: typeof fetch;
  /** The outbound client's retries, and the waits between a response rule's retries; default: `DEFAULT_RETRY_POLICY`. */
  retryPolicy?: RetryPolicy;
  now?: () => number;
  /** The source's request budget for this run (`requester.rate_limit.budget`). */
  budget?: RequestBudget;
}

const DEFAULT_MAX_WAIT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 3;

/** `{record.a.b}` in a path: the parent record's field, percent-encoded as one segment. */
export function fillPath(path: string, record: unknown, encode: (value: string) => string = encodeURIComponent): string {
  return path.replace(/\{record\.([^}]+)\}/g, (_, field: string) => {
    const value = selectPath(record, field);
    if (value === undefined || value === null || typeof value === 'object')
      throw new SourceRequestError(`The path ${path} needs record.${field}, which the record does not have`);
    return encode(String(value));
  });
}

/** `{record.a.b}` in query parameter values: the parent record's field as it is (the client encodes the query). */
export function fillParameters(params: Record<string, string>, record: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) out[key] = fillPath(value, record, (v) => v);
  return out;
}

/**
 * Every request a manifest makes, through the project's outbound client (retries with backoff,
 * `Retry-After`, typed errors, credentials only to `url_base`'s origin, nothing secret logged).
 * On top: the manifest's headers, parameters and authenticator, one refresh-and-retry on 401, and
 * its response rules (retry, fail, or ignore where allowed; errors inside 200 bodies by predicate).
 */
export class RestRequester {
  private readonly client: OutboundHttpClient;
  private readonly auth: RestAuth;
  private readonly baseHeaders: Record<string, string>;
  private readonly baseQuery: Record<string, string>;
  /** Paces every request: the source's budget, and the API's rate-limit headers. */
  readonly gate: RequestGate;
  /** Sends the reads marked `batch: true` together, when the manifest has `requester.batch`. */
  private readonly batcher: RestBatcher<Reply | 'ignored'> | undefined;

  constructor(
    private readonly manifest: RestManifest,
    private readonly deps: RequesterDeps,
  ) {
    const base = manifest.requester;
    const baseUrl = resolveText(base.url_base, deps.env, 'requester.url_base');
    this.baseHeaders = resolveTextMap(base.request_headers, deps.env, 'requester.request_headers');
    this.baseQuery = resolveTextMap(base.request_parameters, deps.env, 'requester.request_parameters');
    const limits = base.rate_limit ?? {};
    this.gate = new RequestGate({
      respectHeaders: limits.respect_headers ?? true,
      minRemaining: limits.min_remaining ?? 0,
      maxWaitMs: limits.max_wait_ms ?? DEFAULT_MAX_WAIT_MS,
      ...(deps.budget ? { budget: deps.budget } : {}),
      ...(deps.now ? { now: deps.now } : {}),
    });
    const gated = this.gate.observe(deps.fetch ?? ((input, init) => globalThis.fetch(input, init)));
    const pace = (signal: AbortSignal | undefined): Promise<void> => this.gate.before(signal);
    this.auth = createRestAuth(base.authenticator, { ...deps, baseUrl, fetch: gated, pace });
    this.client = new OutboundHttpClient({
      baseUrl,
      logger: deps.logger,
      signal: deps.signal,
      headers: async () => ({ ...this.baseHeaders, ...(await this.auth.headers()) }),
      fetch: gated,
      pace,
      ...(deps.retryPolicy ? { retryPolicy: deps.retryPolicy } : {}),
      ...(base.timeout_ms ? { timeoutMs: base.timeout_ms } : {}),
    });
    this.batcher = this.createBatcher();
  }

  /** HTTP requests sent so far, logins and token requests included. */
  get requests(): number {
    return this.client.requestCount + this.auth.requests;
  }

  /** One page of `req`, or `'ignored'` when an `ignore` rule matched. Throws the source's typed errors. */
  async send(req: Requester, record: unknown, target: PageTarget = {}): Promise<Reply | 'ignored'> {
    const method = req.http_method ?? 'GET';
    const at = 'requester';
    const url = target.url ?? fillPath(resolveText(req.path, this.deps.env, `${at}.path`), record);
    const ownQuery = target.url
      ? {}
      : { ...this.baseQuery, ...fillParameters(resolveTextMap(req.request_parameters, this.deps.env, `${at}.request_parameters`), record), ...target.query };
    const headers = resolveTextMap(req.request_headers, this.deps.env, `${at}.request_headers`);
    const filters = [...(req.error_handler?.response_filters ?? []), ...(this.manifest.requester.error_handler?.response_filters ?? [])];
    // A read marked for batching goes out with its siblings (its first page: a next URL is the API's own).
    if (req.batch && this.batcher && method === 'GET' && !target.url && Object.keys(headers).length === 0) {
      return this.batcher.read({ path: url, query: ownQuery, filters });
    }
    const body = req.request_body ? resolveDeep(req.request_body, this.deps.env, `${at}.request_body`) : undefined;
    return this.exchange(method, url, { query: ownQuery, headers, body }, filters, maxRetriesOf(req.error_handler, this.manifest.requester.error_handler));
  }

  /** One request with the authenticator's query, one refresh-and-retry on 401, and the response rules (retry with backoff). */
  private async exchange(
    method: 'GET' | 'POST',
    url: string,
    init: { query: Record<string, QueryValue>; headers: Record<string, string>; body?: unknown },
    filters: readonly ResponseFilter[],
    maxRetries: number,
  ): Promise<Reply | 'ignored'> {
    const query = { ...init.query, ...(await this.auth.query()) };
    let refreshed = false;
    for (let attempt = 0; ; attempt += 1) {
      const response = await this.client.request(method, url, {
        query,
        headers: init.headers,
        ...(init.body !== undefined ? { body: init.body, idempotent: true } : {}),
      });
      if (response.status === 401 && !refreshed && this.auth.invalidate()) {
        refreshed = true;
        await response.body?.cancel().catch(() => undefined);
        continue;
      }
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), new Date());
      const outcome = await this.judge(response, url, filters);
      if (outcome !== 'retry') return outcome;
      if (attempt >= maxRetries)
        throw new SourceUnavailableError(`A response rule asked to retry ${method} ${url.split('?')[0]}; it still matched after ${maxRetries} retries`);
      // As the client waits between its own retries: Retry-After when the answer gives one, else backoff with jitter.
      await sleep(backoffMs(attempt + 1, { retryAfterMs, random: Math.random }, this.deps.retryPolicy ?? DEFAULT_RETRY_POLICY), undefined, {
        signal: this.deps.signal,
      });
    }
  }

  /** The batcher of `requester.batch`: its calls go through `exchange` with the manifest's own rules; each result is judged with its read's. */
  private createBatcher(): RestBatcher<Reply | 'ignored'> | undefined {
    const spec = this.manifest.requester.batch;
    if (!spec) return undefined;
    const baseFilters = this.manifest.requester.error_handler?.response_filters ?? [];
    const maxRetries = maxRetriesOf(undefined, this.manifest.requester.error_handler);
    return new RestBatcher<Reply | 'ignored'>(spec, this.deps.expressions, {
      post: async (path, body) => {
        const reply = await this.exchange('POST', path, { query: {}, headers: {}, body }, baseFilters, maxRetries);
        if (reply === 'ignored') throw new SourceRequestError(`A response rule ignored the batch call ${path}: its reads cannot be ignored with it`);
        return reply.body;
      },
      judge: async (response, url, filters) => {
        const outcome = await this.judge(response, url, filters);
        // A result is not resent on its own: a rule that asks to retry it fails the read (the stream then keeps its staged state).
        if (outcome === 'retry') throw new SourceUnavailableError(`A response rule asked to retry a batched read of ${url.split('?')[0]}`);
        return outcome;
      },
    });
  }

  /** The bytes at `url` (relative to `url_base`, or absolute on its origin), streamed; one refresh-and-retry on 401. */
  async stream(url: string): Promise<Readable> {
    try {
      return await this.client.stream(url, { query: await this.auth.query() });
    } catch (error) {
      if (!(error instanceof SourceAuthError) || !this.auth.invalidate()) throw error;
      return this.client.stream(url, { query: await this.auth.query() });
    }
  }

  private async judge(response: Response, url: string, filters: readonly ResponseFilter[]): Promise<Reply | 'ignored' | 'retry'> {
    const text = response.ok ? await response.text() : await readSnippet(response);
    let body: unknown = undefined;
    let parsed = true;
    try {
      body = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = false;
    }
    for (const filter of filters) {
      if (filter.http_codes && !filter.http_codes.includes(response.status)) continue;
      if (filter.predicate && !(parsed && (await this.deps.expressions.truth(filter.predicate, body)))) continue;
      if (filter.action === 'ignore') return 'ignored';
      if (filter.action === 'retry') return 'retry';
      if (filter.action === 'full_run')
        throw new FullRunRequired(`${filter.error_message ?? 'The answer says the incremental position is no longer valid'} (${url.split('?')[0]})`);
      if (response.ok) throw new SourceRequestError(`${filter.error_message ?? 'The response matched a fail rule'} (${url.split('?')[0]})`);
      break;
    }
    if (!response.ok) throw remoteErrorFromStatus(response.status, { url: response.url || url, body: text });
    if (!parsed) throw new SourceUnavailableError(`Remote answered ${response.status} with a body that is not JSON for ${url.split('?')[0]}`);
    return { status: response.status, headers: response.headers, body };
  }
}

function maxRetriesOf(stream: ErrorHandler | undefined, base: ErrorHandler | undefined): number {
  return stream?.max_retries ?? base?.max_retries ?? DEFAULT_MAX_RETRIES;
}
