import { STATUS_CODES } from 'node:http';
import {
  RemoteAuthError,
  RemoteError,
  RemoteNotFoundError,
  RemotePermissionError,
  RemoteRateLimitError,
  RemoteRequestError,
  RemoteUnavailableError,
} from './remote-error';
import { redactUrl } from './redact-url';

/** Longest upstream body excerpt carried in a message: enough for the remote's own error text. */
export const BODY_SNIPPET_MAX_CHARS = 200;

/**
 * The ONE mapping from an upstream HTTP status to a typed `RemoteError`; callers branch on the
 * class (`instanceof`, `action`), never on the message. The message carries the status, the URL
 * without its query (which may hold secrets) and the start of the upstream body, because the
 * platform shows operators the remote's raw error text.
 *
 * 401 → auth; 403 → permission; 404/410 → not found; 429 → rate limit; 408 and 5xx →
 * unavailable; any other status (other 4xx, or an unexpected 1xx/3xx) → request error.
 */
export function remoteErrorFromStatus(status: number, context: { url: string | URL; body?: string; retryAfterMs?: number }): RemoteError {
  const url = redactUrl(context.url);
  const reason = STATUS_CODES[status];
  const snippet = bodySnippet(context.body);
  const message = `Remote answered ${status}${reason ? ` ${reason}` : ''} for ${url}${snippet ? `: ${snippet}` : ''}`;
  const details = { status, url };
  if (status === 401) return new RemoteAuthError(message, details);
  if (status === 403) return new RemotePermissionError(message, details);
  if (status === 404 || status === 410) return new RemoteNotFoundError(message, details);
  if (status === 429) return new RemoteRateLimitError(message, context.retryAfterMs, details);
  if (status === 408 || (status >= 500 && status <= 599)) return new RemoteUnavailableError(message, details);
  return new RemoteRequestError(message, details);
}

/** Whitespace-collapsed start of `body`, at most `BODY_SNIPPET_MAX_CHARS` characters in all. */
export function bodySnippet(body: string | undefined): string {
  if (!body) return '';
  const text = body.replace(/\s+/g, ' ').trim();
  if (text.length <= BODY_SNIPPET_MAX_CHARS) return text;
  let end = BODY_SNIPPET_MAX_CHARS - 1;
  // Do not cut a surrogate pair in half (an emoji in the remote's message).
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
