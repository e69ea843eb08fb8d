import type { NextFunction, Request, Response } from 'express';
import { GatewayError } from '../../errors/gateway-error';
import { ResponseDeadlines } from '../response-deadlines';

export interface AdmissionLimits {
  maxUrlLength: number;
  /** Requests under `/v1/` answered at once; beyond it, 503 + Retry-After (0: no limit). */
  maxConcurrentRequests: number;
  /** Share of that cap one client may hold at once (1: the whole cap); see `clientLimitOf`. */
  clientConcurrencyShare: number;
  /** A `/v1` answer not finished this long after it was admitted is cut, and its slot freed. */
  responseTimeoutMs: number;
}

export interface AdmissionOptions {
  /** Who a request comes from, for the client's share: its address (as `trust proxy` reads it). */
  clientOf?: (req: Request) => string;
}

/**
 * Pipelined requests (sent on a connection before its previous answer is finished) that may wait
 * for their turn, per slot of the cap; beyond, they are shed like any other request. They cost
 * memory only (a parsed request each), and this bounds it.
 */
const WAITING_PER_SLOT = 4;

/**
 * The slots one client may hold of a cap of `limit`: `share` of it, at least 1 and, when shared
 * at all, one fewer than the cap, so that another client always finds one.
 */
export function clientLimitOf(limit: number, share: number): number {
  if (limit <= 0 || share >= 1) return limit;
  return Math.max(1, Math.min(limit - 1, Math.floor(limit * share)));
}

function overloaded(limit: number): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', `The gateway is at its limit of ${limit} concurrent requests; retry shortly.`, {
    headers: { 'Retry-After': '1' },
    // Names only the gateway's own limit and what to do: the caller should read it.
    expose: true,
  });
}

function overShare(own: number, limit: number): GatewayError {
  return new GatewayError('SERVICE_UNAVAILABLE', `This client has ${own} requests in progress, its share of the gateway's ${limit}; retry shortly.`, {
    headers: { 'Retry-After': '1' },
    expose: true,
  });
}

const byAddress = (req: Request): string => req.ip ?? '';

type Step = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The slots: `admit` takes one for the request (or refuses it: the cap is full, or its client
 * holds its share) until its answer is finished or cut; `untilDeadline`, without a cap, only
 * holds the answer to its deadline.
 */
function slotKeeper(limits: AdmissionLimits, options: AdmissionOptions): { admit: Step; untilDeadline: Step } {
  const limit = limits.maxConcurrentRequests;
  const perClient = clientLimitOf(limit, limits.clientConcurrencyShare);
  const clientOf = perClient < limit ? (options.clientOf ?? byAddress) : undefined;
  const deadlines = new ResponseDeadlines(limits.responseTimeoutMs, (res) => {
    (res as Response).req.log.warn({ responseTimeoutMs: limits.responseTimeoutMs }, 'answer cut: not sent whole within RESPONSE_TIMEOUT_MS');
  });
  let inFlight = 0;
  /** Slots held per client, while it holds any (only with a share). */
  const held = new Map<string, number>();

  const admit: Step = (req, res, next) => {
    if (inFlight >= limit) {
      next(overloaded(limit));
      return;
    }
    const client = clientOf?.(req);
    const own = client === undefined ? 0 : (held.get(client) ?? 0);
    if (own >= perClient) {
      next(overShare(own, limit));
      return;
    }
    inFlight += 1;
    if (client !== undefined) held.set(client, own + 1);
    deadlines.track(res);
    let holding = true;
    const release = (): void => {
      if (!holding) return;
      holding = false;
      inFlight -= 1;
      deadlines.untrack(res);
      if (client === undefined) return;
      const left = (held.get(client) ?? 1) - 1;
      if (left > 0) held.set(client, left);
      else held.delete(client);
    };
    res.once('finish', release);
    res.once('close', release);
    next();
  };

  const untilDeadline: Step = (_req, res, next) => {
    deadlines.track(res);
    const done = (): void => deadlines.untrack(res);
    res.once('finish', done);
    res.once('close', done);
    next();
  };
  return { admit, untilDeadline };
}

/** A request queued behind its connection's previous answer waits for the connection, then for `admit`. */
function turnWaiter(limit: number, admit: Step): Step {
  let waiting = 0;
  return (req, res, next) => {
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
      if (dequeue()) process.nextTick(admit, req, res, next);
    });
    // The connection dropped before this request's turn: Node destroys the queued requests.
    req.once('close', dequeue);
  };
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
 *
 * Nothing a client does holds a slot for ever: an answer is cut once it is `responseTimeoutMs`
 * old (a client reading too slowly to ever finish), besides the server's own `STALL_TIMEOUT_MS`
 * (a client that stopped reading). And one client cannot take the whole cap: it may hold
 * `clientLimitOf` slots. A client is an address, not a connection (one connection holds at most
 * one slot already; twenty stuck downloads are twenty connections) and not an API key (the
 * platform crawls with one key, so a share per key would cap the platform itself; and admission
 * comes before authentication, so load is shed before any key is checked). The platform crawls
 * from a few addresses with about 20 requests in flight, well within a share of 3/4 of the cap,
 * while a second client, or a first one whose downloads wedged, leaves the rest free.
 */
export function admission(limits: AdmissionLimits, options: AdmissionOptions = {}) {
  const limit = limits.maxConcurrentRequests;
  const { admit, untilDeadline } = slotKeeper(limits, options);
  const awaitTurn = turnWaiter(limit, admit);

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
    if (!req.path.startsWith('/v1/')) next();
    else if (limit <= 0) untilDeadline(req, res, next);
    else if (res.socket) admit(req, res, next);
    else awaitTurn(req, res, next);
  };
}
