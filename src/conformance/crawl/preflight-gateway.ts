import type { AuthForm } from './gateway-client';
import { CrawlRecorder } from './crawl-recorder';
import { GatewayClient } from './gateway-client';
import { RateLimitPacer } from './rate-limit-pacer';

export interface PreflightOptions {
  baseUrl: string;
  key: string;
  authForm?: AuthForm;
  timeoutMs?: number;
  insecure?: boolean;
}

/** Why a crawl would be pointless: nothing answers, or the gateway refuses the key. */
export type Preflight = { ok: true } | { ok: false; problem: 'unreachable'; reason: string } | { ok: false; problem: 'key-refused' };

/** The transport error of a request that got no HTTP answer, in words an operator acts on. */
export function describeUnreachable(error: string): string {
  if (/ECONNREFUSED/.test(error)) return `connection refused, nothing is listening there (${error})`;
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(error)) return `the host name does not resolve (${error})`;
  if (/self[- ]signed/i.test(error)) return `TLS failed: ${error} (--insecure accepts a development certificate)`;
  if (/certificate|altnames|SSL|TLS|EPROTO/i.test(error)) return `TLS failed: ${error}`;
  if (/^no answer within/.test(error)) return `${error} (--timeout sets the limit)`;
  if (/ECONNRESET|socket hang up/i.test(error)) return `the connection was closed without an answer (${error})`;
  return error;
}

/**
 * One authenticated GET (`/v1/files?$top=1`) before the crawl, so a dead gateway or a wrong key is
 * one clear answer instead of fifty failed checks. A 401 is retried in the other Authorization form:
 * a gateway that takes only one form has a working key (the checks report the form).
 */
export async function preflightGateway(options: PreflightOptions): Promise<Preflight> {
  const authForm = options.authForm ?? 'bearer';
  const client = new GatewayClient({
    baseUrl: options.baseUrl,
    key: options.key,
    authForm,
    concurrency: 1,
    timeoutMs: options.timeoutMs ?? 30_000,
    recorder: new CrawlRecorder(),
    pacer: new RateLimitPacer(),
    ...(options.insecure ? { insecure: true } : {}),
  });
  try {
    const url = client.url('/v1/files?$top=1');
    const first = await client.get(url, { kind: 'list-files', mode: 'json', retry: false });
    if (first.status === 0) return { ok: false, problem: 'unreachable', reason: describeUnreachable(first.error ?? 'no answer') };
    if (first.status !== 401) return { ok: true };
    const other = authForm === 'bearer' ? options.key : `Bearer ${options.key}`;
    const second = await client.get(url, { kind: 'list-files', mode: 'json', retry: false, auth: { header: other } });
    return second.status === 401 ? { ok: false, problem: 'key-refused' } : { ok: true };
  } finally {
    client.close();
  }
}
