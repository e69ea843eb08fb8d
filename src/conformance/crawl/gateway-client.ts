import crypto from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type { ContractValidation } from './contract-validation';
import type { ExchangeKind } from './crawl-record';
import type { CrawlRecorder } from './crawl-recorder';
import { parseRetryAfter } from '../../lib/parse-retry-after';
import { readRateLimitHeaders, type RateLimitPacer } from './rate-limit-pacer';
import { idPath } from './raw-id-path';

/** `Bearer <key>` or the bare key: the platform's connector may send either. */
export type AuthForm = 'bearer' | 'bare';

export interface GatewayClientOptions {
  baseUrl: string;
  key: string;
  authForm: AuthForm;
  /** Requests in flight at most (the platform uses up to 20). */
  concurrency: number;
  timeoutMs: number;
  recorder: CrawlRecorder;
  pacer: RateLimitPacer;
  validation?: ContractValidation;
  /** Retries of a 429/503 after its Retry-After. */
  maxRetries?: number;
  /** Accept self-signed TLS certificates (a development gateway). */
  insecure?: boolean;
  userAgent?: string;
  /** Paste ids into paths raw, as the platform's own tools do, instead of percent-encoding them. */
  rawIds?: boolean;
}

export interface RequestOptions {
  kind: ExchangeKind;
  /** `json` keeps and parses the body; `hash` streams a 2xx body through SHA-256/SHA-1 and drops it. */
  mode?: 'json' | 'hash';
  /** `default` sends the configured key; `none` sends no Authorization; a string is sent as is. */
  auth?: 'default' | 'none' | { header: string };
  /** Retry 429/503 after Retry-After (probes look at the first answer instead). */
  retry?: boolean;
  /** The encoded path the contract matches, when the URL carries a raw id. */
  contractPath?: string;
}

export interface GatewayResponse {
  url: string;
  /** 0 when there was no HTTP answer (see `error`). */
  status: number;
  headers: IncomingHttpHeaders;
  json?: unknown;
  jsonError?: string;
  /** The first characters of a kept body (probes look for leaked files). */
  snippet?: string;
  bytes: number;
  sha256?: string;
  sha1?: string;
  latencyMs: number;
  error?: string;
}

/** JSON bodies larger than this are counted but not kept. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

interface Target {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: string;
  /** Path and query as they will be sent. */
  path: string;
}

/** Splits an absolute URL without normalising its path (probes send `..` and odd escapes on purpose). */
export function splitUrl(url: string): Target {
  const m = /^(https?):\/\/([^/?#]+)([^#]*)/i.exec(url);
  if (!m) throw new Error(`Not an absolute http(s) URL: ${url}`);
  const origin = new URL(`${(m[1] ?? 'http').toLowerCase()}://${m[2] ?? ''}`);
  let rest = m[3] ?? '';
  if (!rest.startsWith('/')) rest = `/${rest}`;
  // Node refuses raw spaces and non-ASCII in a request path; percent-encode exactly those.
  rest = rest.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  return { protocol: origin.protocol as 'http:' | 'https:', hostname: origin.hostname.replace(/^\[|\]$/g, ''), port: origin.port, path: rest };
}

function isJsonType(headers: IncomingHttpHeaders): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(String(headers['content-type'] ?? ''));
}

/** A response as read, before the client adds its URL, byte count and latency. */
type Answer = Omit<GatewayResponse, 'latencyMs' | 'bytes' | 'url'>;

/** A kept body: its first characters, and its JSON when it is (or, a 2xx, should be) JSON. */
function keptBody(text: string, overflow: boolean, parse: boolean): Pick<Answer, 'snippet' | 'json' | 'jsonError'> {
  const out: Pick<Answer, 'snippet' | 'json' | 'jsonError'> = { snippet: text.slice(0, 2000) };
  if (overflow) out.jsonError = `body larger than ${MAX_JSON_BYTES} bytes`;
  else if (parse) {
    try {
      out.json = JSON.parse(text) as unknown;
    } catch (error) {
      out.jsonError = `not JSON: ${(error as Error).message}`;
    }
  }
  return out;
}

/**
 * Reads one response to its end: a 2xx non-JSON body asked for as `hash` streams through SHA-256
 * and SHA-1 and is dropped; any other is kept (up to MAX_JSON_BYTES) and parsed when JSON. A body
 * that breaks off or a connection closed early ends with `error`.
 */
function receive(res: http.IncomingMessage, mode: RequestOptions['mode'], count: (bytes: number) => void, finish: (answer: Answer) => void): void {
  const status = res.statusCode ?? 0;
  const json = isJsonType(res.headers);
  const hash = mode === 'hash' && status >= 200 && status < 300 && !json;
  const sha256 = hash ? crypto.createHash('sha256') : undefined;
  const sha1 = hash ? crypto.createHash('sha1') : undefined;
  const chunks: Buffer[] = [];
  let kept = 0;
  let overflow = false;
  res.on('data', (chunk: Buffer) => {
    count(chunk.length);
    if (hash) {
      sha256?.update(chunk);
      sha1?.update(chunk);
    } else if (kept + chunk.length <= MAX_JSON_BYTES) {
      chunks.push(chunk);
      kept += chunk.length;
    } else overflow = true;
  });
  res.on('error', (error) => finish({ status, headers: res.headers, error: `the body broke off: ${error.message}` }));
  res.on('close', () => {
    if (!res.complete) finish({ status, headers: res.headers, error: 'the connection closed before the body ended' });
  });
  res.on('end', () => {
    const out: Answer = { status, headers: res.headers };
    if (sha256 && sha1) {
      out.sha256 = sha256.digest('hex');
      out.sha1 = sha1.digest('hex');
    } else Object.assign(out, keptBody(Buffer.concat(chunks).toString('utf8'), overflow, json || (mode !== 'hash' && status >= 200 && status < 300)));
    finish(out);
  });
}

/**
 * Speaks HTTP to one gateway, and only HTTP: a keep-alive agent, at most `concurrency` requests in
 * flight, pacing from Retry-After and X-RateLimit-*, every exchange recorded (latency, bytes,
 * status, rate-limit headers) and checked against the contract. Download bodies are hashed as they
 * stream past and never held.
 */
export class GatewayClient {
  readonly baseUrl: string;
  private readonly basePath: string;
  private readonly slots: ConcurrencyPool;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly options: GatewayClientOptions) {
    const base = new URL(options.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`--url must be an http(s) URL; got ${options.baseUrl}`);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.baseUrl = `${base.origin}${this.basePath}`;
    this.slots = new ConcurrencyPool(options.concurrency);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: options.concurrency, rejectUnauthorized: !options.insecure });
  }

  /** An absolute URL for a path below the base (`/v1/files`). */
  url(pathAndQuery: string): string {
    return `${this.baseUrl}${pathAndQuery}`;
  }

  /** The URL of an operation on an id (encoded, or raw with `rawIds`) and the path the contract matches. */
  idUrl(prefix: '/v1/files/' | '/v1/groups/', id: string, suffix = ''): { url: string; contractPath: string } {
    const p = idPath(prefix, id, suffix, this.options.rawIds ?? false);
    return { url: this.url(p.path), contractPath: p.contractPath };
  }

  get maxInFlight(): number {
    return this.slots.maxRunning;
  }

  async get(url: string, options: RequestOptions): Promise<GatewayResponse> {
    // A request without the crawl's own key (an auth probe) spends the address's failed-
    // authentication budget, not the crawl's: its 429 is the answer under test, never retried.
    const ownKey = (options.auth ?? 'default') === 'default';
    const maxRetries = options.retry === false || !ownKey ? 0 : (this.options.maxRetries ?? 5);
    for (let attempt = 0; ; attempt++) {
      const res = await this.slots.run(async () => {
        await this.options.pacer.beforeRequest();
        return this.once(url, options);
      });
      if (res.status !== 429 && res.status !== 503) return res;
      const retryAfter = String(res.headers['retry-after'] ?? '') || undefined;
      const waitMs = parseRetryAfter(retryAfter, new Date());
      if (waitMs === undefined) this.options.recorder.missingRetryAfter.push({ url, status: res.status });
      if (attempt >= maxRetries || (waitMs === undefined && res.status === 503)) return res;
      this.options.pacer.pause(waitMs ?? 1000 * 2 ** attempt);
      this.options.recorder.retries++;
    }
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private authorization(auth: RequestOptions['auth']): string | undefined {
    if (auth === 'none') return undefined;
    if (typeof auth === 'object') return auth.header;
    return this.options.authForm === 'bearer' ? `Bearer ${this.options.key}` : this.options.key;
  }

  private requestHeaders(options: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = {
      'User-Agent': this.options.userAgent ?? 'content-gateway-conformance/1',
      Accept: options.mode === 'hash' ? '*/*' : 'application/json',
    };
    const authorization = this.authorization(options.auth);
    if (authorization !== undefined) headers.Authorization = authorization;
    return headers;
  }

  /** One GET, recorded; never rejects (no answer is status 0 with `error`). */
  private once(url: string, options: RequestOptions): Promise<GatewayResponse> {
    const { recorder } = this.options;
    const target = splitUrl(url);
    const headers = this.requestHeaders(options);
    const startedAt = performance.now();
    recorder.started(startedAt);

    return new Promise<GatewayResponse>((resolve) => {
      let settled = false;
      let bytes = 0;
      const finish = (res: Answer) => {
        if (settled) return;
        settled = true;
        const endedAt = performance.now();
        recorder.finished({ kind: options.kind, status: res.status, bytes, startedAt, endedAt });
        const out: GatewayResponse = { url, ...res, bytes, latencyMs: endedAt - startedAt };
        this.afterResponse(out, options, target);
        resolve(out);
      };
      const transport = target.protocol === 'https:' ? https : http;
      let req: http.ClientRequest;
      try {
        req = transport.request(
          {
            protocol: target.protocol,
            hostname: target.hostname,
            port: target.port || undefined,
            path: target.path,
            method: 'GET',
            headers,
            agent: target.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
          },
          (res) => receive(res, options.mode, (n) => (bytes += n), finish),
        );
      } catch (error) {
        finish({ status: 0, headers: {}, error: (error as Error).message });
        return;
      }
      req.setTimeout(this.options.timeoutMs, () => req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)));
      req.on('error', (error) => finish({ status: 0, headers: {}, error: error.message }));
      req.end();
    });
  }

  private afterResponse(res: GatewayResponse, options: RequestOptions, target: Target): void {
    const { recorder, pacer, validation } = this.options;
    if (res.status === 0) {
      recorder.transportError({ url: res.url, kind: options.kind, message: res.error ?? 'no answer' });
      return;
    }
    const limits = readRateLimitHeaders(res.headers);
    if (limits) recorder.rateLimit({ url: res.url, ...limits });
    // Only the crawl's own budget paces the crawl (an auth probe's headers are its address's
    // failed-authentication budget).
    if ((options.auth ?? 'default') === 'default') pacer.observe(limits);
    if (!validation) return;
    const rawPath = options.contractPath ?? target.path.split('?')[0] ?? '/';
    const path = this.basePath && rawPath.startsWith(this.basePath) ? rawPath.slice(this.basePath.length) || '/' : rawPath;
    const observed: Parameters<ContractValidation['check']>[0] = { url: res.url, method: 'GET', path, status: res.status, headers: res.headers };
    if (res.json !== undefined) observed.json = res.json;
    if (res.jsonError !== undefined) observed.jsonError = res.jsonError;
    for (const v of validation.check(observed)) recorder.violation(v);
  }
}
