import { OutgoingMessage, type IncomingMessage, type ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/** helmet's defaults, HSTS apart: it is sent only where it means something (`securityHeaders`). */
const everywhere = (): RequestHandler => helmet({ strictTransportSecurity: false }) as RequestHandler;
const overHttps = (): RequestHandler => helmet.strictTransportSecurity({ maxAge: 31_536_000, includeSubDomains: true }) as RequestHandler;

/**
 * helmet on every response, as its documentation shows (`app.use(helmet())`), and HSTS only over
 * HTTPS (native TLS, or a trusted proxy that says so).
 */
export function securityHeaders(): RequestHandler[] {
  const hsts = overHttps();
  return [
    everywhere(),
    function strictTransportSecurity(req: Request, res: Response, next: NextFunction): void {
      if (req.secure) hsts(req, res, next);
      else next();
    },
  ];
}

/**
 * The headers `securityHeaders` sets, as name/value pairs, for the answers written on a socket
 * before any request or response exists (`answerClientErrors`), so they carry the same headers.
 * helmet's own middlewares set them on a Node `OutgoingMessage` (the parent class of every
 * response), so helmet stays their one source.
 */
export function securityHeaderFields(secure: boolean): ReadonlyArray<readonly [string, string]> {
  const message = new OutgoingMessage();
  for (const middleware of secure ? [everywhere(), overHttps()] : [everywhere()]) {
    let done = false;
    middleware({} as IncomingMessage as Request, message as ServerResponse as Response, () => {
      done = true;
    });
    if (!done) throw new Error('helmet did not set its headers synchronously');
  }
  return Object.entries(message.getHeaders()).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)] as const);
}
