import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../logging/create-logger';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Drops query parameters that may carry credentials before a URL is logged. */
export function redactUrl(url: string | undefined): string | undefined {
  return url?.replace(/([?&](?:access_token|token|key|api_key|client_secret)=)[^&]*/gi, '$1[redacted]');
}

/**
 * One structured line per request with a request id (the caller's `X-Request-Id` when it is sane,
 * else a new UUID), echoed in the `X-Request-Id` response header. Headers are never logged, so no
 * credential can reach a log line.
 */
export function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode >= 400) return 'warn';
      return 'info';
    },
  });
}
