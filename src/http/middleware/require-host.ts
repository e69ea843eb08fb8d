import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';

/**
 * Refuses an HTTP/1.1 request without `Host` (RFC 9112 §3.2 requires one; links are built from
 * it). Node refuses it itself with a bare 400 unless told not to, as `answerClientErrors` does so
 * that the refusal comes from here, in the envelope, with the security headers and a request id.
 */
export function requireHost() {
  return function missingHost(req: Request, _res: Response, next: NextFunction): void {
    if (req.headers.host === undefined && !(req.httpVersionMajor === 1 && req.httpVersionMinor === 0)) {
      next(new GatewayError('INPUT_VALIDATION_FAILED', 'An HTTP/1.1 request must carry a Host header.', { headers: { Connection: 'close' } }));
      return;
    }
    next();
  };
}
