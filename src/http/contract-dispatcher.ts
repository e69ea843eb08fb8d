import type { NextFunction, Request, Response } from 'express';
import type { Context, Handler, OpenAPIBackend } from 'openapi-backend';
import { GatewayError } from '../errors/gateway-error';
import type { RateLimiter } from './rate-limits/rate-limiter';
import { callerAddress } from './rate-limits/caller-address';
import type { AuthenticatedClient } from './security/bearer-auth';

export interface ApiSecurity {
  /** The `bearerAuth` scheme's check: the client a request's credential names, or false. */
  authenticate: (req: Request, res: Response) => Promise<AuthenticatedClient | false>;
  /** Per-client request budget; absent when rate limiting is off. */
  rateLimiter?: RateLimiter;
  /** Per-address budget of failed authentications, spent only by them; absent when off. */
  failureLimiter?: RateLimiter;
}

/** Ajv's errors as one sentence naming the parameters (`$top must be integer`). */
function describeValidationErrors(c: Context): string {
  const parts = (c.validation.errors ?? []).map((e) => {
    const where = e.instancePath.replace(/^\/(query|params|headers|path)\//, '').replace(/\//g, '.');
    return `${where || 'request'} ${e.message ?? 'is invalid'}`;
  });
  return parts.length ? `Invalid request: ${[...new Set(parts)].join('; ')}.` : 'Invalid request.';
}

/**
 * `/v1` (and the probes) answered from the contract by openapi-backend, as its documentation
 * shows: every operation's handler and every lifecycle handler registered (`api.register`), the
 * `bearerAuth` scheme's check (`registerSecurityHandler`), and each request passed to
 * `api.handleRequest`. openapi-backend routes (no route is 404, 405 with `Allow` when the path
 * exists), runs the security check, then `postSecurityHandler` (the route label for metrics; an
 * authenticated client's rate budget), then `unauthorizedHandler` (a failed authentication
 * spends the address's failure budget, 429 when spent, else 401), then validates (400 naming the
 * parameters) and calls the operation's handler. HEAD is routed and validated as GET (RFC 9110
 * §9.3.2); Node drops the body of a HEAD answer and keeps its headers, Content-Length included.
 */
export function contractDispatcher(api: OpenAPIBackend, handlers: Record<string, Handler>, security: ApiSecurity) {
  for (const op of api.getOperations()) {
    if (!op.operationId || !handlers[op.operationId]) throw new Error(`Operation ${op.operationId ?? `${op.method} ${op.path}`} has no handler`);
  }
  api.register({
    ...handlers,
    notFound: function notFound(c: Context) {
      throw new GatewayError('NOT_FOUND', `No route for ${c.request.method.toUpperCase()} ${c.request.path}.`);
    },
    methodNotAllowed: function methodNotAllowed(c: Context) {
      throw new GatewayError('METHOD_NOT_ALLOWED', `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}; the gateway is read-only.`, {
        headers: { Allow: 'GET, HEAD' },
      });
    },
    postSecurityHandler: async function postSecurityHandler(c: Context, req: Request, res: Response) {
      res.locals.route = c.operation.operationId;
      if (!security.rateLimiter || !c.security.authorized || !c.operation.security?.length) return;
      const client = res.locals.client as AuthenticatedClient | undefined;
      await security.rateLimiter.consume(client ? client.clientId : `address:${callerAddress(req)}`, res);
    },
    unauthorizedHandler: async function unauthorizedHandler(_c: Context, req: Request, res: Response) {
      // Only here: a request that authenticates never touches the failure budget.
      if (security.failureLimiter) await security.failureLimiter.consume(callerAddress(req), res);
      throw new GatewayError('AUTHENTICATION_FAILED', 'Bearer token missing or invalid.');
    },
    validationFail: function validationFail(c: Context) {
      throw new GatewayError('INPUT_VALIDATION_FAILED', describeValidationErrors(c));
    },
  });
  api.registerSecurityHandler('bearerAuth', async function bearerAuth(_c: Context, req: Request, res: Response) {
    const client = await security.authenticate(req, res);
    if (client) res.locals.client = client;
    return client !== false;
  });

  return function routeThroughContract(req: Request, res: Response, next: NextFunction): void {
    const request = {
      method: req.method === 'HEAD' ? 'GET' : req.method,
      path: req.path,
      query: req.query as Record<string, string | string[]>,
      headers: req.headers as Record<string, string | string[]>,
    };
    api.handleRequest(request, req, res).catch(next);
  };
}
