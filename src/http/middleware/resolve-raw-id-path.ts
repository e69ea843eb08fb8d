import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';
import { encodedIdPath, idPathReadings, isRoutableAsIs, isValidPercentEncoding } from '../id-path-readings';

/** The id route's path as the client sent it, for a handler whose id was not found to try its other readings. */
export function rawIdPathOf(res: Response): string | undefined {
  const path: unknown = res.locals.rawIdPath;
  return typeof path === 'string' ? path : undefined;
}

/**
 * Before routing: an id route whose id was pasted in raw (`/v1/files/demo:company/policy.html`,
 * a lone `%`) is rewritten to the encoded path of its preferred reading, which the router and
 * the contract know; the path as sent stays in `req.originalUrl` (logs) and for `rawIdPathOf`.
 * Paths already in encoded form (every request of a crawler that encodes) go through untouched,
 * and no path costs a database lookup here: a handler that does not find the preferred reading's
 * id tries the others (`fallBackToOtherReadings`). Any other path that is not valid
 * percent-encoding is refused.
 */
export function resolveRawIdPath() {
  return function resolveRawIdPathMiddleware(req: Request, res: Response, next: NextFunction): void {
    const path = req.path;
    if (path.startsWith('/v1/files/') || path.startsWith('/v1/groups/')) {
      // In res.locals, Express's bag for this: a new property on the response itself would change
      // its shape, and every later access to it on the hot path would pay for that.
      res.locals.rawIdPath = path;
      if (isRoutableAsIs(path)) {
        next();
        return;
      }
      const [preferred] = idPathReadings(path) ?? [];
      if (preferred) {
        const query = req.url.indexOf('?');
        req.url = `${encodedIdPath(preferred)}${query < 0 ? '' : req.url.slice(query)}`;
        next();
        return;
      }
    }
    if (!isValidPercentEncoding(path)) next(new GatewayError('INPUT_VALIDATION_FAILED', 'The request path is not valid percent-encoding.'));
    else next();
  };
}
