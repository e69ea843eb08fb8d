import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';

export interface AdmissionLimits {
  maxUrlLength: number;
  /** Requests under `/v1/` answered at once; beyond it, 503 + Retry-After (0: no limit). */
  maxConcurrentRequests: number;
}

/**
 * Refuses, before any work, what no platform request looks like (an over-long URL, a GET with a
 * body) and sheds load beyond the concurrency limit
 * with 503 + Retry-After instead of queueing without bound. (Paths that are not valid
 * percent-encoding are `resolveRawIdPath`'s business: in an id, a lone `%` is part of the id.)
 */
export function admission(limits: AdmissionLimits) {
  let inFlight = 0;
  const release = (): void => {
    inFlight -= 1;
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.originalUrl.length > limits.maxUrlLength) {
      next(new GatewayError('INPUT_VALIDATION_FAILED', `The request URL is longer than ${limits.maxUrlLength} bytes.`));
      return;
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if ((req.method === 'GET' || req.method === 'HEAD') && (length > 0 || req.headers['transfer-encoding'])) {
      next(new GatewayError('INPUT_VALIDATION_FAILED', `${req.method} requests carry no body.`));
      return;
    }
    if (limits.maxConcurrentRequests > 0 && req.path.startsWith('/v1/')) {
      if (inFlight >= limits.maxConcurrentRequests) {
        next(
          new GatewayError('SERVICE_UNAVAILABLE', `The gateway is at its limit of ${limits.maxConcurrentRequests} concurrent requests; retry shortly.`, {
            headers: { 'Retry-After': '1' },
          }),
        );
        return;
      }
      inFlight += 1;
      res.once('close', release);
    }
    next();
  };
}
