import type { ErrorRequestHandler } from 'express';
import { normalizeError } from '../../errors/gateway-error';

/**
 * The last middleware: every error becomes the contract's envelope `{error: {code, message}}`.
 * 5xx details are logged once, here, with the request id, and replaced on the wire by a generic
 * message that names the request id.
 */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const error = normalizeError(err);
  if (res.headersSent) {
    // A stream failed midway (or the client went away): nothing valid can follow; cut the response.
    req.log?.warn({ err }, 'response aborted after headers were sent');
    res.destroy();
    return;
  }
  if (error.status >= 500) req.log?.error({ err: error.cause ?? error }, 'request failed');
  const message = error.expose ? error.message : `The gateway could not complete the request (request id ${String(req.id ?? 'unknown')}).`;
  res.status(error.status).set(error.headers).json({ error: { code: error.code, message } });
};
