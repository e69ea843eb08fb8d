import type { NextFunction, Request, Response } from 'express';
import type { Context, Handler, OpenAPIBackend, Operation } from 'openapi-backend';
import type { ErrorObject, ValidateFunction } from 'ajv';
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

/** Everything about an operation the dispatcher needs, worked out once at start-up. */
interface CompiledOperation {
  operation: Operation;
  handler: Handler;
  validators: ValidateFunction[];
  /** Security requirements (one of them must be met; each names schemes that must all pass). */
  requirements: ReadonlyArray<readonly string[]>;
  schemes: readonly string[];
  /** Query parameters declared as arrays: a single value is validated as a one-element array. */
  arrayQuery: readonly string[];
}

type Parameter = { in: string; name: string; explode?: boolean; content?: unknown; schema?: { type?: unknown } };

/** Ajv's errors as one sentence naming the parameters (`$top must be integer`). */
function describeValidationErrors(errors: readonly ErrorObject[]): string {
  const parts = errors.map((e) => {
    const where = e.instancePath.replace(/^\/(query|params|headers|path)\//, '').replace(/\//g, '.');
    return `${where || 'request'} ${e.message ?? 'is invalid'}`;
  });
  return parts.length ? `Invalid request: ${[...new Set(parts)].join('; ')}.` : 'Invalid request.';
}

function compile(api: OpenAPIBackend, operation: Operation, handlers: Record<string, Handler>): CompiledOperation {
  const id = operation.operationId ?? `${operation.method} ${operation.path}`;
  const handler = operation.operationId ? handlers[operation.operationId] : undefined;
  if (!handler) throw new Error(`Operation ${id} has no handler`);
  const parameters = (operation.parameters ?? []) as Parameter[];
  // What openapi-backend's request parsing does beyond this (cookies, non-exploded or JSON query
  // parameters) is not done here: a contract that needs it fails at start-up, not per request.
  const unsupported = parameters.find((p) => p.in === 'cookie' || (p.in === 'query' && (p.explode === false || p.content !== undefined)));
  if (unsupported) throw new Error(`Operation ${id}: parameter ${unsupported.name} needs request parsing the contract dispatcher does not do`);
  const requirements = (operation.security ?? []).map((r) => Object.keys(r));
  return {
    operation,
    handler,
    validators: api.validator.getRequestValidatorsForOperation(operation.operationId ?? ''),
    requirements,
    schemes: [...new Set(requirements.flat())],
    arrayQuery: parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name),
  };
}

/** The parameters as openapi-backend validates them; Ajv coerces in place, so the query is a copy. */
function validationErrors(op: CompiledOperation, params: Record<string, string>, query: Record<string, unknown>, req: Request): ErrorObject[] | undefined {
  const copy: Record<string, unknown> = {};
  for (const name of Object.keys(query)) {
    const value = query[name];
    copy[name] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
  for (const name of op.arrayQuery) if (typeof copy[name] === 'string') copy[name] = [copy[name]];
  const parameters = { path: { ...params }, query: copy, header: req.headers, cookie: {} };
  let errors: ErrorObject[] | undefined;
  for (const validate of op.validators) {
    if (!validate(parameters) && validate.errors) (errors ??= []).push(...validate.errors);
  }
  return errors;
}

/**
 * `/v1` (and the probes) answered from the contract with no generic dispatch per request: the
 * operation found in a static route table (`ContractRoutes`), the security scheme's check called
 * once, and the Ajv validators openapi-backend compiled for that operation at `init()` called
 * directly. The order and the answers are openapi-backend's `handleRequest`'s, which this
 * replaces: no route is 404 (405 with `Allow` when the path exists), then authentication, then
 * the route label for metrics; a failed authentication then spends the address's failure budget
 * (429 when spent) and is 401; else the client's rate budget, then validation (400 naming the
 * parameters), then the operation's handler with a context shaped as openapi-backend's. HEAD is
 * routed and validated as GET (RFC 9110 §9.3.2).
 */
export function contractDispatcher(api: OpenAPIBackend, handlers: Record<string, Handler>, security: ApiSecurity) {
  const operations = api.router.getOperations();
  const routes = new ContractRoutes(operations);
  const compiled = new Map(operations.map((op) => [op, compile(api, op, handlers)] as const));
  const schemeChecks: Record<string, (req: Request, res: Response) => Promise<boolean>> = {
    bearerAuth: async (req, res) => {
      const client = await security.authenticate(req, res);
      if (client) res.locals.client = client;
      return client !== false;
    },
  };
  for (const op of compiled.values()) {
    const unknown = op.schemes.find((s) => !schemeChecks[s]);
    if (unknown) throw new Error(`Operation ${op.operation.operationId ?? '?'} needs security scheme ${unknown}, which has no check`);
  }

  const authorized = async (op: CompiledOperation, req: Request, res: Response): Promise<boolean> => {
    const passed = new Set<string>();
    for (const scheme of op.schemes) {
      // A check that throws is a failed check, as in openapi-backend.
      if (await (schemeChecks[scheme] as (req: Request, res: Response) => Promise<boolean>)(req, res).catch(() => false)) passed.add(scheme);
    }
    return op.requirements.some((schemes) => schemes.every((s) => passed.has(s)));
  };

  const dispatch = async (req: Request, res: Response): Promise<void> => {
    const method = req.method === 'HEAD' ? 'get' : req.method.trim().toLowerCase();
    const path = requestPath(req.path);
    const match = routes.match(method, path);
    if (match === 'not-found') throw new GatewayError('NOT_FOUND', `No route for ${method.toUpperCase()} ${path}.`);
    if (match === 'method-not-allowed') {
      throw new GatewayError('METHOD_NOT_ALLOWED', `${method.toUpperCase()} is not allowed on ${path}; the gateway is read-only.`, { headers: { Allow: 'GET, HEAD' } });
    }
    const op = compiled.get(match.operation) as CompiledOperation;
    const ok = op.requirements.length === 0 || (await authorized(op, req, res));
    res.locals.route = op.operation.operationId;
    if (!ok) {
      // Only here: a request that authenticates never touches the failure budget.
      if (security.failureLimiter) await security.failureLimiter.consume(callerAddress(req), res);
      throw new GatewayError('AUTHENTICATION_FAILED', 'Bearer token missing or invalid.');
    }
    if (security.rateLimiter && op.requirements.length > 0) {
      const client = res.locals.client as AuthenticatedClient | undefined;
      await security.rateLimiter.consume(client ? client.clientId : `address:${callerAddress(req)}`, res);
    }
    const query = req.query as Record<string, unknown>;
    const errors = validationErrors(op, match.params, query, req);
    if (errors) throw new GatewayError('INPUT_VALIDATION_FAILED', describeValidationErrors(errors));
    const request = { method, path, params: match.params, query, headers: req.headers, cookies: {}, requestBody: undefined };
    const context = { api, request, operation: op.operation, validation: { valid: true, errors: null }, security: { authorized: true } } as unknown as Context;
    await op.handler(context, req, res);
  };

  return function routeThroughContract(req: Request, res: Response, next: NextFunction): void {
    dispatch(req, res).catch(next);
  };
}
