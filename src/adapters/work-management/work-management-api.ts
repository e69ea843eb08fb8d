import type { Readable } from 'node:stream';
import type { Logger } from '../../logging/create-logger';
import { abortError, throwIfAborted } from '../../lib/abort-error';
import { paginateItems } from '../../outbound-http/paginate';
import { redactUrl } from '../../outbound-http/redact-url';
import type { RetryPolicy } from '../../outbound-http/retry-policy';
import { isRetryableStatus } from '../../outbound-http/retry-policy';
import { OutboundHttpClient, type QueryValue } from '../../outbound-http/outbound-http-client';
import { remoteErrorFromStatus } from '../../outbound-http/remote-error-from-status';
import { SourceError, SourceUnavailableError } from '../source-error';
import type { WmPage } from './work-management-records';

/** The service's own limit on actions per `POST /batch` (reference §4). */
export const MAX_BATCH_ACTIONS = 10;
/** The largest page the service serves (reference §2). */
export const PAGE_LIMIT = 100;

/** What tests and benchmarks may swap: the transport, the clock of retries, the retry schedule. */
export interface HttpOverrides {
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  retryPolicy?: RetryPolicy;
  random?: () => number;
  timeoutMs?: number;
}

export interface WorkManagementApiOptions extends HttpOverrides {
  baseUrl: string;
  token: string;
  logger: Logger;
  signal: AbortSignal;
  /** HTTP requests in flight at once (a batch counts as one). */
  concurrency: number;
  /** Send concurrent reads through `POST /batch` (default true; turned off by itself when the service refuses batches). */
  batch?: boolean;
}

/** A raw answer: status and parsed body (`undefined` when empty or not JSON). */
export interface Answer {
  status: number;
  body: unknown;
}

type Query = Record<string, QueryValue>;

interface Pending {
  path: string;
  query: Query;
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

/** Counts of what a run asked the service for (benchmarks report requests per task). */
export interface ApiCounters {
  /** HTTP requests to the API (every attempt, batches counted once). */
  apiRequests: number;
  /** HTTP requests to download hosts. */
  downloadRequests: number;
  batches: number;
  batchedActions: number;
  directReads: number;
}

/**
 * The work-management API as the adapter uses it: GETs of one record or one page, automatically
 * gathered into `POST /batch` calls of up to ten actions when several are pending at once, at
 * most `concurrency` HTTP requests in flight; list walks on the shared pagination iterator; and
 * downloads from pre-signed URLs through a separate client that never carries the token.
 *
 * Why a batcher rather than explicit batches: crawl code stays a plain "for each task, list its
 * stories and attachments" (with `Promise.all`), and whatever is pending when a request slot
 * frees up goes out together. Each action still counts against the service's rate limits, so
 * batching saves round trips and connection overhead, not quota.
 */
export class WorkManagementApi {
  private readonly client: OutboundHttpClient;
  private readonly downloadClients = new Map<string, OutboundHttpClient>();
  private readonly queue: Pending[] = [];
  private active = 0;
  private flushScheduled = false;
  private batching: boolean;
  private readonly counters = { batches: 0, batchedActions: 0, directReads: 0 };

  constructor(private readonly options: WorkManagementApiOptions) {
    this.batching = options.batch ?? true;
    this.client = new OutboundHttpClient({
      baseUrl: options.baseUrl,
      logger: options.logger,
      signal: options.signal,
      headers: () => ({ authorization: `Bearer ${options.token}` }),
      userAgent: 'content-gateway work-management adapter',
      ...httpOverrides(options),
    });
    options.signal.addEventListener('abort', () => this.rejectQueued(abortError(options.signal)), { once: true });
  }

  get stats(): ApiCounters {
    let downloads = 0;
    for (const c of this.downloadClients.values()) downloads += c.requestCount;
    return { apiRequests: this.client.requestCount, downloadRequests: downloads, ...this.counters };
  }

  /** `GET path` answered with a 2xx: its parsed body. Other statuses throw the matching `SourceError`. */
  async get<T>(path: string, query: Query = {}): Promise<T> {
    const answer = await this.answer(path, query);
    return expectOk<T>(answer, `${this.options.baseUrl}${path}`);
  }

  /** The raw answer of `GET path` (for the events endpoints, whose 412 carries a sync token). */
  answer(path: string, query: Query = {}): Promise<Answer> {
    throwIfAborted(this.options.signal);
    return new Promise<Answer>((resolve, reject) => {
      this.queue.push({ path, query, resolve, reject });
      this.pump();
    });
  }

  /** Every item of a listing, page by page (`limit=100`, `next_page.offset`). */
  list<T>(path: string, query: Query, fields: string): AsyncGenerator<T, void, undefined> {
    return paginateItems<T>(
      async (offset) => {
        const page = await this.get<WmPage<T>>(path, { ...query, limit: PAGE_LIMIT, offset, opt_fields: fields });
        return { items: Array.isArray(page?.data) ? page.data : [], next: page?.next_page?.offset ?? null };
      },
      { signal: this.options.signal },
    );
  }

  /** A whole listing in memory (small listings: stories of a task, members of a project). */
  async all<T>(path: string, query: Query, fields: string): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this.list<T>(path, query, fields)) out.push(item);
    return out;
  }

  /**
   * A download from a pre-signed URL, through a client of that URL's origin that sends no
   * credentials (the token must never leave the API's origin).
   */
  download(url: string): Promise<Readable> {
    const origin = new URL(url).origin;
    let client = this.downloadClients.get(origin);
    if (!client) {
      client = new OutboundHttpClient({ baseUrl: origin, logger: this.options.logger, signal: this.options.signal, ...httpOverrides(this.options) });
      this.downloadClients.set(origin, client);
    }
    return client.stream(url);
  }

  // --------------------------------------------------------------------------------------------
  // The batcher
  // --------------------------------------------------------------------------------------------

  /** Sends what is pending while request slots are free: full batches at once, a partial one after a tick. */
  private pump(): void {
    while (this.active < this.options.concurrency && this.queue.length >= MAX_BATCH_ACTIONS) this.dispatch();
    if (this.queue.length > 0 && this.active < this.options.concurrency && !this.flushScheduled) {
      // Let the code that is running now enqueue its siblings before a partial batch leaves.
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        while (this.active < this.options.concurrency && this.queue.length > 0) this.dispatch();
      });
    }
  }

  private dispatch(): void {
    const items = this.queue.splice(0, this.batching ? MAX_BATCH_ACTIONS : 1);
    if (items.length === 0) return;
    this.active += 1;
    const work = items.length === 1 ? this.runDirect(items[0] as Pending) : this.runBatch(items);
    void work.finally(() => {
      this.active -= 1;
      this.pump();
    });
  }

  private async runDirect(item: Pending): Promise<void> {
    try {
      item.resolve(await this.direct(item.path, item.query));
    } catch (error) {
      item.reject(error);
    }
  }

  /** One GET outside any batch, with the client's retries (429 after `Retry-After`, 5xx with backoff). */
  private async direct(path: string, query: Query): Promise<Answer> {
    this.counters.directReads += 1;
    const response = await this.client.request('GET', path, { query });
    const text = await response.text();
    return { status: response.status, body: parseJson(text) };
  }

  private async runBatch(items: Pending[]): Promise<void> {
    this.counters.batches += 1;
    this.counters.batchedActions += items.length;
    let results: Array<{ status_code?: unknown; body?: unknown }>;
    try {
      const answer = await this.client.json<{ data?: unknown }>('POST', '/batch', {
        body: { data: { actions: items.map((i) => batchAction(i.path, i.query)) } },
        // Every action is a read: repeating the batch is as harmless as repeating a GET.
        idempotent: true,
      });
      if (!Array.isArray(answer?.data) || answer.data.length !== items.length) {
        throw new SourceUnavailableError(
          `The batch endpoint answered ${Array.isArray(answer?.data) ? answer.data.length : 'no'} results for ${items.length} actions`,
        );
      }
      results = answer.data as typeof results;
    } catch (error) {
      const status = error instanceof SourceError ? error.details.status : undefined;
      if (status === 400 || status === 404 || status === 405 || status === 501) {
        // A service (or a proxy in front of it) without the batch endpoint: read one by one from now on.
        this.options.logger.warn({ status }, 'work-management: the batch endpoint is unavailable; reading one request at a time');
        this.batching = false;
        this.queue.unshift(...items);
        return;
      }
      for (const item of items) item.reject(error);
      return;
    }
    const retries: Array<Promise<void>> = [];
    results.forEach((result, i) => {
      const item = items[i] as Pending;
      const status = typeof result?.status_code === 'number' ? result.status_code : 500;
      // An action the service could not serve right now: repeat it alone, with the client's retries.
      if (isRetryableStatus(status)) retries.push(this.runDirect(item));
      else item.resolve({ status, body: result.body });
    });
    await Promise.all(retries);
  }

  private rejectQueued(error: Error): void {
    for (const item of this.queue.splice(0)) item.reject(error);
  }
}

function httpOverrides(o: HttpOverrides): HttpOverrides {
  const out: HttpOverrides = {};
  if (o.fetch) out.fetch = o.fetch;
  if (o.sleep) out.sleep = o.sleep;
  if (o.retryPolicy) out.retryPolicy = o.retryPolicy;
  if (o.random) out.random = o.random;
  if (o.timeoutMs !== undefined) out.timeoutMs = o.timeoutMs;
  return out;
}

/**
 * A GET as a batch action: filters go in `data` (a GET's query), paging and `opt_fields` in
 * `options` (`limit`, `offset`, `fields`), as the batch API expects (reference §4).
 */
function batchAction(path: string, query: Query): Record<string, unknown> {
  const data: Record<string, string> = {};
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (key === 'limit') options.limit = Number(value);
    else if (key === 'offset') options.offset = String(value);
    else if (key === 'opt_fields') options.fields = String(value).split(',');
    else data[key] = String(value);
  }
  return { relative_path: path, method: 'get', ...(Object.keys(data).length ? { data } : {}), ...(Object.keys(options).length ? { options } : {}) };
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The body of a 2xx answer; any other status becomes the one typed `SourceError` for it. */
export function expectOk<T>(answer: Answer, url: string): T {
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.body === undefined) throw new SourceUnavailableError(`Source answered ${answer.status} with a body that is not JSON for ${redactUrl(url)}`);
    return answer.body as T;
  }
  throw remoteErrorFromStatus(answer.status, { url, body: answer.body === undefined ? '' : JSON.stringify(answer.body) });
}
