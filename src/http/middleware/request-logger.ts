import crypto from 'node:crypto';
import type { Express, Request, Response } from 'express';
import type { Logger } from '../../logging/create-logger';
import type { SecretRedactor } from '../security/secret-redactor';

/** A caller's `X-Request-Id` is kept only when it is this tame: it goes into every log line and back in the response. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's `X-Request-Id` when it is sane and holds no secret, else a new UUID. */
    id: string;
    /** A logger bound to the request id (created on first use). */
    log: Logger;
  }
}

/**
 * One structured line per request (`request completed`, with id, method, redacted URL, status
 * and duration) and the request id echoed in `X-Request-Id`. Headers and bodies are never logged;
 * the URL goes through `redactor` (credential parameters by name, configured secrets wherever
 * they appear), and a caller's request id that holds a secret is replaced like any other unfit id.
 *
 * Written on pino directly rather than with pino-http: pino-http builds a child logger with a
 * serialised request for every request, which cost ~15 % of a list page's CPU in `npm run bench`.
 * Here `req.log` is a getter on the app's request prototype (defined once, not per request), and
 * the child logger is made only when something actually logs.
 */
export function requestLogger(app: Express, logger: Logger, redactor: SecretRedactor) {
  const children = new WeakMap<Request, Logger>();
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request): Logger {
      let child = children.get(this);
      if (!child) {
        child = logger.child({ reqId: this.id });
        children.set(this, child);
      }
      return child;
    },
  });
  return function startRequestLog(req: Request, res: Response): void {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) && !redactor.holdsSecret(given) ? given : crypto.randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          reqId: id,
          req: { method: req.method, url: redactor.redactUrl(req.originalUrl), remoteAddress: req.socket.remoteAddress },
          res: { statusCode: status, aborted: !res.writableFinished },
          responseTime: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        },
        'request completed',
      );
    });
  };
}
