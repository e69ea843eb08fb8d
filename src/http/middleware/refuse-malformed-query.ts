import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';
import { isValidPercentEncoding } from '../id-path-readings';

/**
 * Refuses a query string that is not valid percent-encoding, every option (ignored ones too):
 * Node's querystring, which parses it for Express, decodes what it can and keeps the rest (`%zz`
 * stays, `%FF` becomes U+FFFD), so `$filter=id eq '%FF'` would quietly ask for an id nobody sent.
 * Unlike a path, a query never holds a raw id: clients that paste ids build it with an encoder.
 */
export function refuseMalformedQuery() {
  return function malformedQuery(req: Request, _res: Response, next: NextFunction): void {
    const at = req.url.indexOf('?');
    if (at >= 0 && !isValidPercentEncoding(req.url.slice(at + 1))) {
      next(
        new GatewayError(
          'INPUT_VALIDATION_FAILED',
          'The query string is not valid percent-encoding: every % must start an escape of UTF-8 (send a % itself as %25).',
        ),
      );
      return;
    }
    next();
  };
}
