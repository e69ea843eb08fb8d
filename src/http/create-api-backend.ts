import addFormats from 'ajv-formats';
import type { Request, Response } from 'express';
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import { GatewayError } from '../errors/gateway-error';
import type { HandlerDeps } from './handler-context';
import { operationHandlers } from './operation-handlers';
import type { RateLimiter } from './rate-limiter';
import type { AuthenticatedClient } from './security/bearer-auth';

type Authenticate = (req: Request, res: Response) => Promise<AuthenticatedClient | false>;

export interface ApiSecurity {
  authenticate: Authenticate;
  /** Per-client request budget; absent when rate limiting is off. */
  rateLimiter?: RateLimiter;
}

/** Ajv's errors as one sentence naming the parameters (`$top must be integer`). */
function describeValidationErrors(c: Context): string {
  const errors = c.validation.errors ?? [];
  const parts = errors.map((e) => {
    const where = e.instancePath.replace(/^\/(query|params|headers|path)\//, '').replace(/\//g, '.');
    return `${where || 'request'} ${e.message ?? 'is invalid'}`;
  });
  return parts.length ? `Invalid request: ${[...new Set(parts)].join('; ')}.` : 'Invalid request.';
}

/**
 * The contract drives routing, authentication and request validation: strict mode (a broken
 * document or an unknown operation fails at start-up), every lifecycle handler registered (without
 * `validationFail`, openapi-backend would let invalid requests through), and `init()` awaited.
 */
export async function createApiBackend(definition: Document, deps: HandlerDeps, security: ApiSecurity): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    definition,
    strict: true,
    quick: false,
    validate: true,
    ignoreTrailingSlashes: true,
    customizeAjv: (ajv) => {
      addFormats(ajv);
      return ajv;
    },
  });
  api.register({
    ...operationHandlers(deps),
    validationFail: function validationFail(c: Context) {
      throw new GatewayError('INPUT_VALIDATION_FAILED', describeValidationErrors(c));
    },
    unauthorizedHandler: function unauthorizedHandler() {
      throw new GatewayError('AUTHENTICATION_FAILED', 'Bearer token missing or invalid.');
    },
    notFound: function notFound(c: Context) {
      throw new GatewayError('NOT_FOUND', `No route for ${c.request.method.toUpperCase()} ${c.request.path}.`);
    },
    methodNotAllowed: function methodNotAllowed(c: Context) {
      throw new GatewayError('METHOD_NOT_ALLOWED', `${c.request.method.toUpperCase()} is not allowed on ${c.request.path}; the gateway is read-only.`, {
        headers: { Allow: 'GET, HEAD' },
      });
    },
    notImplemented: function notImplemented(c: Context) {
      throw new Error(`Operation ${c.operation?.operationId ?? '?'} has no handler`);
    },
  });
  api.registerSecurityHandler('bearerAuth', async function bearerAuth(_c: Context, req: Request, res: Response) {
    const client = await security.authenticate(req, res);
    if (client) res.locals.client = client;
    return client !== false;
  });
  // After authentication, before the 401 or the handler: label the route for metrics and spend
  // the caller's rate budget (by client, or by address for failed logins, which slows guessing).
  api.register('postSecurityHandler', async function postSecurityHandler(c: Context, req: Request, res: Response) {
    res.locals.route = c.operation.operationId;
    if (!security.rateLimiter || !c.operation.security?.length) return;
    const client = res.locals.client as AuthenticatedClient | undefined;
    await security.rateLimiter.consume(client ? client.clientId : `address:${req.ip ?? 'unknown'}`, res);
  });
  await api.init();
  // The router rebuilds its operation list (a lodash chain over the whole document) twice on every
  // request it matches; the document never changes after init, so build it once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  return api;
}
