import { STATUS_CODES } from 'node:http';
import {
  PlatformAuthError,
  PlatformError,
  PlatformForbiddenError,
  PlatformGoneError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformRequestError,
  PlatformUnavailableError,
} from './platform-error';
import { redactUrl } from '../outbound-http/redact-url';

/** `gateway` is the content gateway itself, read over HTTP by the operator tools. */
export type PlatformApi = 'data' | 'conversations' | 'message' | 'auth' | 'gateway';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The code and message of any of the platform's three error formats (flat, enveloped, OAuth). */
export function readErrorBody(text: string): { code?: string; message?: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim() ? { message: text.trim().slice(0, 200) } : {};
  }
  if (!isObj(body)) return {};
  const inner = isObj(body.error) ? body.error : body;
  const code = typeof inner.code === 'string' ? inner.code : typeof body.error === 'string' ? body.error : undefined;
  const message = typeof inner.message === 'string' ? inner.message : typeof body.error_description === 'string' ? body.error_description : undefined;
  return { ...(code !== undefined ? { code } : {}), ...(message !== undefined ? { message: message.slice(0, 500) } : {}) };
}

const WHO: Record<PlatformApi, string> = {
  data: "The platform's Data API",
  conversations: "The platform's Conversations API",
  message: "The platform's Message API",
  auth: "The platform's token endpoint",
  gateway: 'The gateway',
};

/**
 * The ONE mapping from a final non-2xx answer of the platform to a typed error. The Data API
 * answers 403 for bad credentials (it lists no 401), so a Data API 403 is an auth error.
 */
export function platformErrorFromResponse(api: PlatformApi, status: number, url: string, bodyText: string): PlatformError {
  const { code, message } = readErrorBody(bodyText);
  const where = redactUrl(url);
  const text =
    `${WHO[api]} answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + ` for ${where}${code ? ` (${code})` : ''}${message ? `: ${message}` : ''}`;
  const details = { status, url: where, ...(code !== undefined ? { code } : {}) };
  if (status === 401 || (status === 403 && api !== 'conversations')) return new PlatformAuthError(text, details);
  if (status === 403) return new PlatformForbiddenError(text, details);
  if (status === 404) return new PlatformNotFoundError(text, details);
  if (status === 410) return new PlatformGoneError(text, details);
  if (status === 429) return new PlatformRateLimitError(text, details);
  if (status >= 500 || status === 408) return new PlatformUnavailableError(text, details);
  return new PlatformRequestError(text, details);
}
