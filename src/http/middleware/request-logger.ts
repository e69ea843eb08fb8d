import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../../logging/create-logger';
import type { SecretRedactor } from '../security/secret-redactor';

/** A caller's `X-Request-Id` is kept only when it is this tame: it goes into every log line and back in the response. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * pino-http: one structured line per request (`request completed`, or `request aborted` /
 * `request errored`, with the request id, method, redacted URL, status and duration), `req.log`
 * bound to the request id, and the id echoed in `X-Request-Id`. The id is the caller's
 * `X-Request-Id` when it is tame and holds no secret, else a new UUID. Headers and bodies are
 * never logged (the serializers name what is); the URL goes through `redactor` (credential
 * parameters by name, configured secrets wherever they appear).
 */
export function requestLogger(logger: Logger, redactor: SecretRedactor) {
  return pinoHttp({
    logger,
    quietReqLogger: true,
    genReqId(req: IncomingMessage, res: ServerResponse): string {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) && !redactor.holdsSecret(given) ? given : crypto.randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { method: string; url: string; remoteAddress?: string }) => ({
        method: req.method,
        url: redactor.redactUrl(req.url),
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel(_req, res, err) {
      if (err || res.statusCode >= 500) return 'error';
      return res.statusCode >= 400 ? 'warn' : 'info';
    },
  });
}
