import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';

export interface AdmissionLimits {
  maxUrlLength: number;
  /** Requests under `/v1/` answered at once; beyond it, 503 + Retry-After (0: no limit). */
  maxConcurrentRequests: number;
}

/**
 * Pipelined requests (sent on a connection before its previous answer is finished) that may wait
 * for their turn, per slot of the cap; beyond, they are shed like any other request. They cost
 * memory only (a parsed request each), and this bounds it.
 */
const WAITING_PER_SLOT = 4;

function overloaded(limit: number): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', `The gateway is at its limit of ${limit} concurrent requests; retry shortly.`, {
    headers: { 'Retry-After': '1' },
    // Names only the gateway's own limit and what to do: the caller should read it.
    expose: true,
  });
}

/**
 * Refuses, before any work, what no platform request looks like (an over-long URL, a GET with a
 * body) and sheds load beyond the concurrency limit with 503 + Retry-After instead of queueing
 * without bound. (Paths that are not valid percent-encoding are `resolveRawIdPath`'s business: in
 * an id, a lone `%` is part of the id.)
 *
 * A slot is held from admission until the answer is finished (`finish`), or cut off (`close`
 * without `finish`), and given back exactly once. A request that arrives on a connection whose
 * previous answer is still going out (HTTP/1.1 pipelining, or a keep-alive client that sends its
 * next request as soon as it has read the bytes) cannot be answered before that one anyway: Node
 * queues its response until the connection is free. It waits for that moment (its response
 * getting the socket) before it asks for a slot, so one connection never holds two; counting it
 * at once made 50 such connections under a cap of 64 overflow the cap with 503s.
 */
export function admission(limits: AdmissionLimits) {
  const limit = limits.maxConcurrentRequests;
  let inFlight = 0;
  let waiting = 0;

  const admit = (res: Response, next: NextFunction): void => {
    if (inFlight >= limit) {
      next(overloaded(limit));
      return;
    }
    inFlight += 1;
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      inFlight -= 1;
    };
    res.once('finish', release);
    res.once('close', release);
    next();
  };

  return function admissionMiddleware(req: Request, res: Response, next: NextFunction): void {
    if (req.originalUrl.length > limits.maxUrlLength) {
      next(new GatewayError('URI_TOO_LONG', `The request URL is longer than ${limits.maxUrlLength} bytes.`));
      return;
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if ((req.method === 'GET' || req.method === 'HEAD') && (length > 0 || req.headers['transfer-encoding'])) {
      next(new GatewayError('INPUT_VALIDATION_FAILED', `${req.method} requests carry no body.`));
      return;
    }
    if (limit <= 0 || !req.path.startsWith('/v1/')) {
      next();
      return;
    }
    if (res.socket) {
      admit(res, next);
      return;
    }
    // Queued behind the connection's previous answer: wait for the connection, not for a slot.
    if (waiting >= limit * WAITING_PER_SLOT) {
      next(overloaded(limit));
      return;
    }
    waiting += 1;
    let queued = true;
    const dequeue = (): boolean => {
      if (!queued) return false;
      queued = false;
      waiting -= 1;
      return true;
    };
    // The socket is handed over while the previous answer's `finish` is being emitted, before
    // that answer's own release has run: admit on the next tick, once its slot is back.
    res.once('socket', () => {
      if (dequeue()) process.nextTick(admit, res, next);
    });
    // The connection dropped before this request's turn: Node destroys the queued requests.
    req.once('close', dequeue);
  };
}
