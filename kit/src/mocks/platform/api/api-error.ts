/**
 * Errors of the simulator's APIs, each family in its own format (seed: Errors): the Conversations
 * API envelopes `{"error": {"code", "message"}}` with its code enum; the Data and Message APIs
 * answer a flat `{"code", "message"}`; the token endpoint answers RFC 6749's `{error, error_description}`.
 */
import type { Response } from 'express';
import type { Family } from './lifecycle-table';

export type ErrorKind = 'bad-request' | 'bad-cursor' | 'unauthorized' | 'forbidden' | 'not-found' | 'gone' | 'rate-limited' | 'internal';

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const STATUS: Record<ErrorKind, number> = {
  'bad-request': 400,
  'bad-cursor': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  gone: 410,
  'rate-limited': 429,
  internal: 500,
};

/** Conversations API codes (the list-messages table, plus INVALID_REQUEST of the feedback notes). */
const CONVERSATIONS_CODE: Record<ErrorKind, string> = {
  'bad-request': 'INVALID_REQUEST',
  'bad-cursor': 'INVALID_CURSOR',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  'not-found': 'NOT_FOUND',
  gone: 'NOT_FOUND',
  'rate-limited': 'RATE_LIMIT_EXCEEDED',
  internal: 'INTERNAL_ERROR',
};

const FLAT_CODE: Record<ErrorKind, string> = {
  'bad-request': 'BAD_REQUEST',
  'bad-cursor': 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  'not-found': 'NOT_FOUND',
  gone: 'GONE',
  'rate-limited': 'RATE_LIMIT_EXCEEDED',
  internal: 'INTERNAL_SERVER_ERROR',
};

const OAUTH_CODE: Partial<Record<ErrorKind, string>> = { 'bad-request': 'invalid_request', unauthorized: 'invalid_client' };

export function statusOf(kind: ErrorKind): number {
  return STATUS[kind];
}

export function errorBody(family: Family, kind: ErrorKind, message: string): unknown {
  if (family === 'conversations') return { error: { code: CONVERSATIONS_CODE[kind], message } };
  if (family === 'auth') return { error: OAUTH_CODE[kind] ?? FLAT_CODE[kind].toLowerCase(), error_description: message };
  return { code: FLAT_CODE[kind], message };
}

export function sendError(res: Response, family: Family, error: unknown): void {
  const e = error instanceof ApiError ? error : new ApiError('internal', 'Internal server error');
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .status(statusOf(e.kind))
    .set(e.headers)
    // Whatever type the handler had set before it failed: every error body is JSON.
    .type('application/json')
    .json(errorBody(family, e.kind, e.message));
}
