/**
 * When to repeat an outbound request and how long to wait first. Pure functions only (no clock, no
 * randomness, no I/O) so the schedule is table-tested; the client supplies `now` and `random`.
 *
 * Attempts are counted from 1: `attempt` is always "how many requests have been sent so far",
 * i.e. the number of the attempt whose outcome is being judged.
 */

export interface RetryPolicy {
  /** Total requests per call, the first one included (1 disables retries). */
  maxAttempts: number;
  /** Backoff ceiling after the first failed attempt; it doubles per attempt. */
  baseDelayMs: number;
  /** Largest backoff we invent ourselves. */
  maxDelayMs: number;
  /**
   * Largest `Retry-After` we honour. A longer one is capped, not obeyed, so one hour-long quota
   * reset cannot stall a sync; the request then fails again and surfaces a typed error.
   */
  maxRetryAfterMs: number;
  /**
   * How long a 429 without a usable `Retry-After` waits, for services whose guidance is a fixed
   * wait (the platform's: 60 s). Absent: the exponential backoff, as for any other retry.
   */
  rateLimitWaitMs?: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 120_000,
});

/** What one attempt produced, reduced to what the retry decision needs. */
export type Outcome = { kind: 'response'; status: number; retryAfter?: string | null } | { kind: 'network-error'; code?: string };

/**
 * Error codes of failures that are plausibly transient: the connection dropped, timed out or
 * was refused (a restarting upstream), or DNS had a temporary failure. ENOTFOUND is deliberately
 * absent (a wrong host name does not heal by waiting), as are undici's argument and abort codes.
 */
const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Statuses worth repeating: timeouts, rate limits and server-side failures (not 501, which is permanent). */
export function isRetryableStatus(status: number): boolean {
  if (status === 408 || status === 429) return true;
  return status >= 500 && status <= 599 && status !== 501;
}

/** True for network error codes that may succeed on a later attempt. An abort never does. */
export function isTransientNetworkCode(code: string | undefined): boolean {
  return code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
}

/**
 * Whether to send attempt `attempt + 1` after `outcome`. Never past `policy.maxAttempts`, never
 * for a 2xx/3xx or a 4xx other than 408/429, never for an abort (`AbortError`/`ABORT_ERR` are
 * not in the transient set, so the caller's cancellation always wins).
 */
export function shouldRetry(outcome: Outcome, attempt: number, policy: RetryPolicy): boolean {
  if (attempt >= policy.maxAttempts) return false;
  return outcome.kind === 'response' ? isRetryableStatus(outcome.status) : isTransientNetworkCode(outcome.code);
}

/**
 * Whether repeating the request is safe when the method is not idempotent (POST, PATCH): only
 * when the remote certainly did not act on it — it answered 429 (rejected before processing) or
 * the connection was refused (nothing was sent). The work-management API's own SDK does not
 * retry POSTs at all (reference/work-management.md §9).
 */
export function isSafeToRepeat(outcome: Outcome, idempotent: boolean): boolean {
  if (idempotent) return true;
  return outcome.kind === 'response' ? outcome.status === 429 : outcome.code === 'ECONNREFUSED';
}

/**
 * How long to wait before attempt `attempt + 1`. A remote-given `retryAfterMs` wins (capped at
 * `maxRetryAfterMs`: a rejected request still costs quota, so we wait at least as asked, up to
 * the cap). Otherwise exponential backoff with full jitter:
 * `random() * min(maxDelayMs, baseDelayMs * 2^(attempt-1))`.
 *
 * Invariant: the result is an integer in [0, maxRetryAfterMs] when `retryAfterMs` is given and
 * in [0, maxDelayMs] otherwise, whatever `random` returns.
 */
export function backoffMs(attempt: number, options: { retryAfterMs?: number | undefined; random: () => number }, policy: RetryPolicy): number {
  if (options.retryAfterMs !== undefined && Number.isFinite(options.retryAfterMs)) {
    return Math.round(clamp(options.retryAfterMs, 0, Math.max(0, policy.maxRetryAfterMs)));
  }
  const cap = Math.max(0, policy.maxDelayMs);
  const exponent = Math.max(0, Math.min(attempt - 1, 52));
  const ceiling = Math.min(cap, Math.max(0, policy.baseDelayMs) * 2 ** exponent);
  const jitter = clamp(options.random(), 0, 1);
  return Math.floor(clamp(jitter * ceiling, 0, cap));
}

function clamp(value: number, min: number, max: number): number {
  if (Number.isNaN(value)) return min;
  return Math.min(max, Math.max(min, value));
}
