import os from 'node:os';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { ConcurrencyPool } from '../../lib/concurrency-pool';
import { callerAddress } from '../rate-limits/caller-address';
import type { RateLimitCounters } from '../rate-limits/rate-limit-counters';
import type { RequestCounter } from '../rate-limits/shared-counter';
import { verifyClientSecret, type OAuthClient } from './client-secrets';
import { CONSOLE_ADMIN_SCOPE, type AccessTokens } from './access-tokens';

/** RFC 6749 §5.2's codes, plus `slow_down` (RFC 8628 §3.5) and `temporarily_unavailable` (RFC 6749 §4.1.2.1) for the limits. */
type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'unauthorized_client'
  | 'slow_down'
  | 'temporarily_unavailable';

export interface TokenEndpointLimits {
  /** Requests per minute per address and per client id (0: none). */
  ratePerMinute: number;
  /** Client secrets checked at once; `auto`: `autoSecretChecks()`. */
  concurrency: number | 'auto';
  /** Where the budgets are counted (this process, the cluster primary, or Redis). */
  counters: RateLimitCounters;
  /** The per-address budget of failed authentications `/v1` spends too (`AUTH_FAILURE_LIMIT`); absent when off. */
  failures?: RequestCounter;
  /** Presented secrets shorter than this are refused before any check (production: `MIN_SECRET_LENGTH`; else 0). */
  minSecretLength: number;
  /** The console's admin clients (`CONSOLE_ADMIN_CLIENTS`): their tokens carry `CONSOLE_ADMIN_SCOPE`, and no other client's do. */
  adminClients?: ReadonlySet<string>;
}

/**
 * The scope a token is issued with: a console admin's tokens always carry `CONSOLE_ADMIN_SCOPE`
 * (asked for or not; any other scope is refused), a crawler's never (asking for it is refused;
 * other values are ignored as before, since the platform may send one).
 */
function grantedScope(
  clientId: string,
  requested: unknown,
  adminClients: ReadonlySet<string> | undefined,
): { scope: string | undefined } | { refused: string } {
  if (adminClients?.has(clientId)) {
    return requested === undefined || requested === CONSOLE_ADMIN_SCOPE
      ? { scope: CONSOLE_ADMIN_SCOPE }
      : { refused: `this client's tokens have the scope ${CONSOLE_ADMIN_SCOPE} only` };
  }
  return requested === CONSOLE_ADMIN_SCOPE ? { refused: `this client is not a console admin (CONSOLE_ADMIN_CLIENTS)` } : { scope: undefined };
}

/**
 * One less than the CPUs, between 1 and 2: a check keeps a core busy for its whole duration, and
 * on a 2-CPU machine two at once left serving a share of the cores too small (a flood's download
 * p50 at 1.4 to 2.7 times idle with 2, 1.2 to 1.4 times mostly with 1).
 */
export function autoSecretChecks(cpus: number = os.availableParallelism()): number {
  return Math.min(2, Math.max(1, cpus - 1));
}

/** Where `createApp` mounts the token route: other requests then skip its router entirely. */
export const TOKEN_PATH = '/oauth2/token';

const BODY_LIMIT_BYTES = 4096;
/**
 * Requests that wait for a secret check beyond the running ones, and for how long at most. Held,
 * not refused at once: a flood client that re-sends as soon as it is answered would otherwise turn
 * instant 503s into a request flood at CPU speed (measured: download p50 500 to 900 ms during a
 * 32-client flood answered at once, 7.5 ms when the same flood is held up to a second). A held
 * request costs a socket and a closure, no thread.
 */
const QUEUE_LIMIT = 64;
const QUEUE_WAIT_MS = 1000;
/** The rate-limit bucket of every client id that is not configured: unknown ids cannot grow the limiter's memory. */
const UNKNOWN_CLIENT = '?';

function oauthError(res: Response, status: number, error: OAuthErrorCode, description: string, headers: Record<string, string> = {}): void {
  if (error === 'invalid_client') res.set('WWW-Authenticate', 'Basic realm="content-gateway", charset="UTF-8"');
  res
    .status(status)
    .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers })
    .json({ error, error_description: description });
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-urlencoded id and secret) or the body. */
function clientCredentials(req: Request): { id: string; secret: string; via: 'basic' | 'body' } | { problem: string } | undefined {
  const header = req.headers.authorization;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const inBody = body.client_id !== undefined || body.client_secret !== undefined;
  if (header && /^basic\s/i.test(header)) {
    if (inBody) return { problem: 'use either HTTP Basic or body credentials, not both' };
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { problem: 'malformed Basic credentials' };
    try {
      return {
        id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
        secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
        via: 'basic',
      };
    } catch {
      return { problem: 'malformed Basic credentials' };
    }
  }
  if (typeof body.client_id === 'string' && typeof body.client_secret === 'string') return { id: body.client_id, secret: body.client_secret, via: 'body' };
  return undefined;
}

/** Retry-After for a spent budget: whole seconds, at least one. */
function retryAfter(rejection: RateLimiterRes): string {
  return String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
}

/** Spends one point of `key`'s budget; the seconds to wait when it is spent, else undefined. */
async function spend(limiter: RequestCounter | undefined, key: string): Promise<string | undefined> {
  if (!limiter) return undefined;
  try {
    await limiter.consume(key);
    return undefined;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return retryAfter(rejection);
    throw rejection;
  }
}

/**
 * `invalid_client` (401), after spending the address's failure budget: once it is spent, 429
 * `slow_down` with Retry-After instead. Only failed client authentication spends it.
 */
async function refuseClient(req: Request, res: Response, failures: RequestCounter | undefined, description: string): Promise<void> {
  const wait = await spend(failures, callerAddress(req));
  if (wait)
    return oauthError(res, 429, 'slow_down', `too many failed client authentications from this address; retry after ${wait} s`, { 'Retry-After': wait });
  oauthError(res, 401, 'invalid_client', description);
}

/** body-parser's refusals (too large, too many parameters, unsupported encoding, aborted) as RFC 6749 errors, with their own status. */
function bodyParserError(err: unknown, res: Response): void {
  const e = err as { status?: unknown; type?: unknown };
  const status = typeof e.status === 'number' && e.status >= 400 && e.status < 500 ? e.status : 400;
  const description =
    e.type === 'entity.too.large'
      ? `the request body is larger than ${BODY_LIMIT_BYTES} bytes`
      : e.type === 'parameters.too.many'
        ? 'the request body has too many parameters'
        : e.type === 'encoding.unsupported' || e.type === 'charset.unsupported'
          ? 'the request body must be plain application/x-www-form-urlencoded (UTF-8, no Content-Encoding)'
          : 'the request body could not be read';
  oauthError(res, status, 'invalid_request', description);
}

/**
 * `POST /oauth2/token` (the router answers at its root; `createApp` mounts it at `TOKEN_PATH`):
 * the client-credentials grant (RFC 6749 §4.4). The platform tries HTTP
 * Basic and body credentials, so both work. Errors use RFC 6749's JSON form, not the gateway
 * envelope: OAuth clients parse these. Secrets are compared in constant time and never logged.
 *
 * A secret check is a deliberately slow scrypt on libuv's thread pool, which downloads need for
 * their file reads: unchecked, 32 parallel wrong secrets took download latency from 3 ms to 2 s.
 * So before any check, each address and each client id spend a budget
 * (`OAUTH_TOKEN_RATE_LIMIT` a minute; 429 `slow_down` + Retry-After beyond), and at most
 * `OAUTH_TOKEN_CONCURRENCY` checks run at once; up to 64 more wait up to a second for their
 * turn, and what finds no turn is answered 503 `temporarily_unavailable` + Retry-After. A body declared over 4 KiB is
 * refused with 413 before it is read.
 *
 * A failed client authentication (none, an unknown client, a wrong secret, or in production a
 * secret under 32 characters, refused before any check) spends the address's failure budget that
 * `/v1` spends too, and is answered 429 `slow_down` once it is spent.
 */
export function oauthTokenRoute(clients: readonly OAuthClient[], tokens: AccessTokens, limits: TokenEndpointLimits): Router {
  const byId = new Map(clients.map((c) => [c.id, c]));
  // A fixed hash to verify against when the client is unknown, so timing does not reveal which ids exist.
  const decoy = clients[0]?.secretHash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const perAddress = limits.ratePerMinute > 0 ? limits.counters.counter('token-address', limits.ratePerMinute, 60) : undefined;
  const perClient = limits.ratePerMinute > 0 ? limits.counters.counter('token-client', limits.ratePerMinute, 60) : undefined;
  const secretChecks = new ConcurrencyPool(limits.concurrency === 'auto' ? autoSecretChecks() : limits.concurrency, {
    queueLimit: QUEUE_LIMIT,
    maxWaitMs: QUEUE_WAIT_MS,
  });
  const parseBody = express.urlencoded({ extended: false, limit: BODY_LIMIT_BYTES, parameterLimit: 20, type: () => true });

  const router = express.Router();
  router.post(
    '/',
    // The address's budget first: a refused request costs no body parsing either.
    async function spendAddressBudget(req: Request, res: Response, next: NextFunction) {
      const wait = await spend(perAddress, callerAddress(req));
      if (wait) return oauthError(res, 429, 'slow_down', `too many token requests from this address; retry after ${wait} s`, { 'Retry-After': wait });
      next();
    },
    function parseTokenRequestBody(req: Request, res: Response, next: NextFunction) {
      // A declared length over the limit is refused before any of the body is read (body-parser
      // would wait for the whole body first), and the connection is not kept for what follows.
      if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES) {
        res.set('Connection', 'close');
        return oauthError(res, 413, 'invalid_request', `the request body is larger than ${BODY_LIMIT_BYTES} bytes`);
      }
      parseBody(req, res, (err?: unknown) => (err ? bodyParserError(err, res) : next()));
    },
    async function issueToken(req: Request, res: Response) {
      if (!req.is('application/x-www-form-urlencoded')) {
        return oauthError(res, 415, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
      }
      const body = (req.body ?? {}) as Record<string, unknown>;
      // RFC 6749 §3.2: parameters must not be sent more than once (the parser makes them arrays).
      const repeated = Object.keys(body).filter((name) => Array.isArray(body[name]));
      if (repeated.length > 0) return oauthError(res, 400, 'invalid_request', `parameter(s) sent more than once: ${repeated.join(', ')}`);
      const credentials = clientCredentials(req);
      if (credentials && 'problem' in credentials) return oauthError(res, 400, 'invalid_request', credentials.problem);
      if (!credentials) return refuseClient(req, res, limits.failures, 'client authentication is required (HTTP Basic or client_id/client_secret)');
      if (credentials.secret.length < limits.minSecretLength) {
        return refuseClient(
          req,
          res,
          limits.failures,
          `client secrets must be at least ${limits.minSecretLength} characters in production (make a new one and its OAUTH_CLIENTS entry with \`hash-secret\`)`,
        );
      }
      const client = byId.get(credentials.id);
      const wait = await spend(perClient, client ? client.id : UNKNOWN_CLIENT);
      if (wait) return oauthError(res, 429, 'slow_down', `too many token requests for this client; retry after ${wait} s`, { 'Retry-After': wait });
      const checked = await secretChecks.tryRun(() => verifyClientSecret(credentials.secret, client?.secretHash ?? decoy));
      if (!checked.ran) return oauthError(res, 503, 'temporarily_unavailable', 'too many token requests at once; retry shortly', { 'Retry-After': '1' });
      if (!client || !checked.value) return refuseClient(req, res, limits.failures, 'unknown client or wrong secret');
      if (body.grant_type === undefined) return oauthError(res, 400, 'invalid_request', 'grant_type is required');
      if (body.grant_type !== 'client_credentials') return oauthError(res, 400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
      const granted = grantedScope(client.id, body.scope, limits.adminClients);
      if ('refused' in granted) return oauthError(res, 400, 'invalid_scope', granted.refused);
      const accessToken = await tokens.issue(client.id, granted.scope);
      res
        .set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' })
        .json({ access_token: accessToken, token_type: 'Bearer', expires_in: tokens.ttlSeconds, ...(granted.scope ? { scope: granted.scope } : {}) });
    },
  );
  router.all('/', function refuseOtherMethods(_req, res) {
    res.set('Allow', 'POST');
    oauthError(res, 405, 'invalid_request', 'use POST');
  });
  return router;
}
