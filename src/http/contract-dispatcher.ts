import type { NextFunction, Request, Response } from 'express';
import type { Context, Handler, OpenAPIBackend, Operation, ParsedRequest, ValidationResult } from 'openapi-backend';
import { GatewayError } from '../errors/gateway-error';
import { ContractRoutes, requestPath } from './contract-routes';
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
function describeValidationErrors(validation: ValidationResult): string {
  const parts = (validation.errors ?? []).map((e) => {
    const where = e.instancePath.replace(/^\/(query|params|headers|path)\//, '').replace(/\//g, '.');
    return `${where || 'request'} ${e.message ?? 'is invalid'}`;
  });
  return parts.length ? `Invalid request: ${[...new Set(parts)].join('; ')}.` : 'Invalid request.';
}

function checkContract(operations: readonly Operation[], handlers: Record<string, Handler>): void {
  for (const op of operations) {
    if (!op.operationId || !handlers[op.operationId]) throw new Error(`Operation ${op.operationId ?? `${op.method} ${op.path}`} has no handler`);
    const schemes = (op.security ?? []).flatMap((r) => Object.keys(r));
    const unknown = schemes.find((s) => s !== 'bearerAuth');
    if (unknown) throw new Error(`Operation ${op.operationId} needs security scheme ${unknown}, which has no check`);
  }
}

/** The operation a request's method and path name, or the contract's 404 / 405. */
function route(routes: ContractRoutes, req: Request): { operation: Operation; request: ParsedRequest } {
  const method = req.method === 'HEAD' ? 'get' : req.method.trim().toLowerCase();
  const path = requestPath(req.path);
  const match = routes.match(method, path);
  if (match === 'not-found') throw new GatewayError('NOT_FOUND', `No route for ${method.toUpperCase()} ${path}.`);
  if (match === 'method-not-allowed') {
    throw new GatewayError('METHOD_NOT_ALLOWED', `${method.toUpperCase()} is not allowed on ${path}; the gateway is read-only.`, {
      headers: { Allow: 'GET, HEAD' },
    });
  }
  const query = req.query as Record<string, string | string[]>;
  const headers = req.headers as Record<string, string | string[]>;
  return { operation: match.operation, request: { method, path, params: match.params, query, headers, cookies: {}, requestBody: undefined } };
}

/**
 * `/v1` (and the probes) answered from the contract. The one shortcut kept from the libraries'
 * documented use (issue 28): openapi-backend's `handleRequest` finds the operation with
 * `router.matchOperation`, which rebuilds the whole operation list with lodash and compiles a
 * RegExp per path template on every request; here the route table is built once
 * (`ContractRoutes`, tested against the router as its oracle). Measured worth, list-throughput
 * and sample-comparison on one machine, in turn: see kit/bench/README.md ("the one
 * shortcut kept"). Everything else is openapi-backend's as documented: the operations it parsed,
 * `api.validateRequest(request, operation)` with the Ajv validators it compiled at `init()`, and
 * a handler called with its `Context`.
 *
 * The order and the answers are `handleRequest`'s: no route is 404 (405 with `Allow` when the
 * path exists), then authentication and the route label for metrics; a failed authentication
 * spends the address's failure budget (429 when spent) and is 401; else the client's rate budget,
 * then validation (400 naming the parameters), then the operation's handler. HEAD is routed and
 * validated as GET (RFC 9110 §9.3.2); Node drops a HEAD answer's body and keeps its headers.
 */
export function contractDispatcher(api: OpenAPIBackend, handlers: Record<string, Handler>, security: ApiSecurity) {
  const operations = api.getOperations();
  checkContract(operations, handlers);
  const routes = new ContractRoutes(operations);

  const authorize = async (operation: Operation, req: Request, res: Response): Promise<boolean> => {
    if (!operation.security?.length) return true;
    // A check that throws is a failed check, as in openapi-backend.
    const client = await security.authenticate(req, res).catch(() => false as const);
    if (client) res.locals.client = client;
    return client !== false;
  };

  const dispatch = async (req: Request, res: Response): Promise<void> => {
    const { operation, request } = route(routes, req);
    res.locals.route = operation.operationId;
    if (!(await authorize(operation, req, res))) {
      // Only here: a request that authenticates never touches the failure budget.
      if (security.failureLimiter) await security.failureLimiter.consume(callerAddress(req), res);
      throw new GatewayError('AUTHENTICATION_FAILED', 'Bearer token missing or invalid.');
    }
    if (security.rateLimiter && operation.security?.length) {
      const client = res.locals.client as AuthenticatedClient | undefined;
      await security.rateLimiter.consume(client ? client.clientId : `address:${callerAddress(req)}`, res);
    }
    const validation = api.validateRequest(request, operation);
    if (!validation.valid) throw new GatewayError('INPUT_VALIDATION_FAILED', describeValidationErrors(validation));
    const context: Context = { api, request, operation, validation, security: { authorized: true }, response: undefined };
    await (handlers[operation.operationId as string] as Handler)(context, req, res);
  };

  return function routeThroughContract(req: Request, res: Response, next: NextFunction): void {
    dispatch(req, res).catch(next);
  };
}
