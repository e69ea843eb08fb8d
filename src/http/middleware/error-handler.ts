import type { ErrorRequestHandler } from 'express';
import { GatewayError, normalizeError } from '../../errors/gateway-error';
import { isDatabaseUnavailable } from '../../lib/database-unavailable';

/** Seconds a client is asked to wait when the database cannot be reached. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The error a request answers with: a database that cannot be reached is a 503 with `Retry-After`, a retry may succeed. */
export function responseError(err: unknown): GatewayError {
  if (!isDatabaseUnavailable(err)) return normalizeError(err);
  return new GatewayError('SERVICE_UNAVAILABLE', 'The gateway cannot reach its database just now; retry after `Retry-After` seconds.', {
    cause: err,
    headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    expose: true,
  });
}

/**
 * The last middleware: every error becomes the contract's envelope `{error: {code, message}}`.
 * 5xx details are logged once, here, with the request id, and replaced on the wire by a generic
 * message that names the request id.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const error = responseError(err);
  if (res.headersSent) {
    // A stream failed midway (or the client went away): nothing valid can follow; cut the response.
    req.log?.warn({ err }, 'response aborted after headers were sent');
    res.destroy();
    return;
  }
  if (error.status >= 500) req.log?.error({ err: error.cause ?? error }, 'request failed');
  const message = error.expose ? error.message : `The gateway could not complete the request (request id ${String(req.id ?? 'unknown')}).`;
  res
    .status(error.status)
    .set(error.headers)
    .json({ error: { code: error.code, message } });
};
