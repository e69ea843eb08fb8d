import express, { type Express, type RequestHandler } from 'express';
import type { OpenAPIBackend } from 'openapi-backend';
import type { BlobStore } from '../blobs/blob-store';
import { settingDefaults, type Config } from '../config/config-schema';
import { MIN_SECRET_LENGTH } from '../config/min-secret-length';
import { GatewayError } from '../errors/gateway-error';
import { setServerOptions } from '../lib/server-options-of';
import type { Logger } from '../logging/create-logger';
import { SkipTokenCodec } from '../odata/skip-token';
import type { Db } from '../staging/database/create-db';
import { FilesRepository } from '../staging/repositories/files-repository';
import { IdentitiesRepository } from '../staging/repositories/identities-repository';
import { contractDispatcher } from './contract-dispatcher';
import { createApiBackend } from './create-api-backend';
import { GatewayMetrics } from './gateway-metrics';
import type { HandlerDeps } from './handler-context';
import { loadGatewayContract } from './load-contract';
import { admission } from './middleware/admission';
import { allowedHosts } from './middleware/allowed-hosts';
import { errorHandler } from './middleware/error-handler';
import { refuseMalformedQuery } from './middleware/refuse-malformed-query';
import { requestLogger } from './middleware/request-logger';
import { requireHost } from './middleware/require-host';
import { resolveRawIdPath } from './middleware/resolve-raw-id-path';
import { securityHeaders } from './middleware/security-headers';
import { WEBHOOKS_PATH, webhookReceiverRoute } from './webhooks/webhook-receiver-route';
import { WebhookSecretsRepository } from '../staging/repositories/webhook-secrets-repository';
import type { SyncRequester } from './webhooks/sync-requester';
import { TOKEN_PATH, oauthTokenRoute, type TokenEndpointLimits } from './security/oauth-token-route';
import { operationHandlers } from './operation-handlers';
import { RateLimiter } from './rate-limits/rate-limiter';
import { RateLimitCounters } from './rate-limits/rate-limit-counters';
import { MEMORY_STORE, type RateLimitStore } from './rate-limits/rate-limit-store';
import type { RequestCounter } from './rate-limits/shared-counter';
import type { AccessTokens } from './security/access-tokens';
import { accessTokensOf } from './security/access-tokens-of';
import { ApiKeyVerifier } from './security/api-key-verifier';
import { createBearerAuth } from './security/bearer-auth';
import { parseOAuthClients, type OAuthClient } from './security/client-secrets';
import { SecretRedactor } from './security/secret-redactor';

export type AppConfig = Pick<
  Config,
  | 'publicBaseUrl'
  | 'allowedHosts'
  | 'pageSizeDefault'
  | 'pageSizeMax'
  | 'includeHtmlBodyInList'
  | 'trustProxy'
  | 'oauthClients'
  | 'oauthSigningKey'
  | 'oauthTokenTtlSeconds'
  | 'oauthAudience'
  | 'oauthTokenRateLimit'
  | 'oauthTokenConcurrency'
  | 'consoleAdminClients'
  | 'rateLimitRequests'
  | 'rateLimitWindowSeconds'
  | 'authFailureLimit'
  | 'nodeEnv'
  | 'maxConcurrentRequests'
  | 'clientConcurrencyShare'
  | 'responseTimeoutMs'
  | 'metricsToken'
  | 'syncQueueSchema'
  | 'maxUrlLength'
  | 'readinessTimeoutMs'
>;

/** Defaults for the production settings (the config schema's own), so tests and benches name only what they change. */
export const APP_DEFAULTS = settingDefaults([
  'allowedHosts',
  'pageSizeDefault',
  'pageSizeMax',
  'includeHtmlBodyInList',
  'trustProxy',
  'oauthClients',
  'oauthSigningKey',
  'oauthTokenTtlSeconds',
  'oauthAudience',
  'oauthTokenRateLimit',
  'oauthTokenConcurrency',
  'consoleAdminClients',
  'rateLimitRequests',
  'rateLimitWindowSeconds',
  'authFailureLimit',
  'nodeEnv',
  'maxConcurrentRequests',
  'clientConcurrencyShare',
  'responseTimeoutMs',
  'metricsToken',
  'syncQueueSchema',
  'maxUrlLength',
  'readinessTimeoutMs',
]) satisfies Omit<AppConfig, 'publicBaseUrl'>;

export interface AppDeps {
  config: Partial<AppConfig> & Pick<AppConfig, 'publicBaseUrl'>;
  db: Db;
  blobs: BlobStore;
  logger: Logger;
  apiKeys: readonly string[];
  skipTokenSecret: string;
  now?: () => Date;
  /** Where rate-limit counters live (default: in this process). */
  rateLimitStore?: RateLimitStore;
  /**
   * What `/metrics` answers, given this app's own registry; default: that registry. A cluster
   * worker answers every worker's figures, gathered by its primary (`cli/cluster-metrics.ts`).
   */
  metricsText?: (own: GatewayMetrics) => Promise<string>;
  /** The operator console (built by `serve` only when `CONSOLE_ENABLED`): its router, mounted at `path` before the contract's routes. */
  console?: { path: string; router: RequestHandler };
  /** Receive a source's webhooks at `/webhooks/<source>` and ask `requester` for an incremental sync on each. */
  webhooks?: { source: string; requester: SyncRequester };
}

/** `AUTH_FAILURE_LIMIT` counts per minute. */
const AUTH_FAILURE_WINDOW_SECONDS = 60;

/** `TRUST_PROXY` as Express understands it: a boolean, a hop count, or a list of addresses. */
export function parseTrustProxy(value: string): boolean | number | string[] {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((v) => v.trim());
}

function handlerDepsOf(deps: AppDeps, config: AppConfig, metrics: GatewayMetrics): HandlerDeps {
  return {
    config,
    db: deps.db,
    files: new FilesRepository(deps.db),
    identities: new IdentitiesRepository(deps.db),
    blobs: deps.blobs,
    skipTokens: new SkipTokenCodec(deps.skipTokenSecret),
    logger: deps.logger,
    metrics,
  };
}

/** The OAuth clients, and the access tokens issued to them when there are any. */
function oauthOf(config: AppConfig, deps: AppDeps): { clients: OAuthClient[]; tokens: AccessTokens | undefined } {
  const clients = parseOAuthClients(config.oauthClients);
  return { clients, tokens: accessTokensOf(config, clients, deps.skipTokenSecret, deps.now) };
}

interface RateLimits {
  counters: RateLimitCounters;
  /** Requests per client (`RATE_LIMIT_REQUESTS`); absent when off. */
  rateLimiter: RateLimiter | undefined;
  /** One count of failed authentications per address, spent by /v1 and the token endpoint alike. */
  authFailures: RequestCounter | undefined;
  failureLimiter: RateLimiter | undefined;
}

function rateLimitsOf(config: AppConfig, deps: AppDeps, metrics: GatewayMetrics): RateLimits {
  const counters = new RateLimitCounters(deps.rateLimitStore ?? MEMORY_STORE, deps.logger, metrics.registry);
  const rateLimiter =
    config.rateLimitRequests > 0
      ? new RateLimiter(
          config.rateLimitRequests,
          config.rateLimitWindowSeconds,
          counters.counter('requests', config.rateLimitRequests, config.rateLimitWindowSeconds),
        )
      : undefined;
  const authFailures = config.authFailureLimit > 0 ? counters.counter('auth-failures', config.authFailureLimit, AUTH_FAILURE_WINDOW_SECONDS) : undefined;
  const failureLimiter = authFailures
    ? new RateLimiter(config.authFailureLimit, AUTH_FAILURE_WINDOW_SECONDS, authFailures, 'failed authentications from this address')
    : undefined;
  return { counters, rateLimiter, authFailures, failureLimiter };
}

/** An Express app with the gateway's server options and no middleware yet. */
function bareApp(trustProxy: boolean | number | string[]): Express {
  const app = express();
  // A request without `Host` is `requireHost`'s to refuse, in the envelope: Node must not first.
  setServerOptions(app, { requireHostHeader: false });
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);
  return app;
}

/** Every secret the process holds in plain text, so none of them can reach a log line. */
function secretRedactor(deps: AppDeps, config: AppConfig, clients: readonly OAuthClient[]): SecretRedactor {
  return new SecretRedactor([
    ...deps.apiKeys,
    deps.skipTokenSecret,
    config.oauthSigningKey,
    config.metricsToken,
    ...config.oauthClients,
    ...clients.map((c) => c.secretHash),
  ]);
}

/** What every request passes first: its log line and metrics, security headers, host checks, admission, query and path checks. */
function useFrontDoor(app: Express, config: AppConfig, metrics: GatewayMetrics, logger: Logger, redactor: SecretRedactor): void {
  app.use(requestLogger(logger, redactor));
  app.use(metrics.middleware());
  app.use(securityHeaders());
  app.use(requireHost());
  // PUBLIC_BASE_URL's host is allowed too: it is the name a proxy in front forwards.
  if (config.allowedHosts.length > 0)
    app.use(allowedHosts([...config.allowedHosts, ...(config.publicBaseUrl ? [new URL(config.publicBaseUrl).hostname] : [])]));
  // A client's address: the socket's, unless a proxy is trusted to name it (`req.ip`).
  const untrusted = parseTrustProxy(config.trustProxy) === false;
  app.use(admission(config, { clientOf: untrusted ? (req) => req.socket.remoteAddress ?? '' : (req) => req.ip ?? '' }));
  app.use(refuseMalformedQuery());
  app.use(resolveRawIdPath());
}

/** `GET /metrics` (Prometheus), for the bearer of `METRICS_TOKEN` only. */
function metricsRoute(metrics: GatewayMetrics, token: string, metricsText: AppDeps['metricsText']): RequestHandler {
  const metricsAuth = new ApiKeyVerifier([token]);
  return async function serveMetrics(req, res, next) {
    res.locals.route = 'metrics';
    const presented = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
    if (!presented || metricsAuth.verify(presented) === undefined) {
      next(new GatewayError('AUTHENTICATION_FAILED', 'Bearer token missing or invalid.'));
      return;
    }
    res.type(metrics.registry.contentType).send(metricsText ? await metricsText(metrics) : await metrics.registry.metrics());
  };
}

function tokenEndpointLimits(config: AppConfig, limits: RateLimits): TokenEndpointLimits {
  return {
    ratePerMinute: config.oauthTokenRateLimit,
    concurrency: config.oauthTokenConcurrency,
    counters: limits.counters,
    ...(limits.authFailures ? { failures: limits.authFailures } : {}),
    minSecretLength: config.nodeEnv === 'production' ? MIN_SECRET_LENGTH : 0,
    adminClients: new Set(config.consoleAdminClients),
  };
}

/**
 * Builds the gateway app (no listening, no I/O beyond reading the contract): helmet on every
 * response (HSTS only over HTTPS), a request id and log line per request, load shedding, raw ids
 * in paths resolved to their encoded form, the contract at /openapi.json, OAuth's token endpoint when clients are configured, /metrics when a
 * token protects it, and every other route through the contract (`contractDispatcher`).
 */
export async function createApp(deps: AppDeps): Promise<{ app: Express; api: OpenAPIBackend; metrics: GatewayMetrics }> {
  if (deps.apiKeys.length === 0) throw new Error('createApp needs at least one API key');
  const config: AppConfig = { ...APP_DEFAULTS, ...deps.config };
  const metrics = new GatewayMetrics(deps.db, config.syncQueueSchema);
  const handlerDeps = handlerDepsOf(deps, config, metrics);
  const { clients, tokens } = oauthOf(config, deps);
  const limits = rateLimitsOf(config, deps, metrics);
  const contract = loadGatewayContract();
  const contractJson = JSON.stringify(contract.document);
  const api = await createApiBackend(contract);
  const routeThroughContract = contractDispatcher(api, operationHandlers(handlerDeps), {
    authenticate: createBearerAuth(new ApiKeyVerifier(deps.apiKeys), tokens),
    ...(limits.rateLimiter ? { rateLimiter: limits.rateLimiter } : {}),
    ...(limits.failureLimiter ? { failureLimiter: limits.failureLimiter } : {}),
  });

  const app = bareApp(parseTrustProxy(config.trustProxy));
  useFrontDoor(app, config, metrics, deps.logger, secretRedactor(deps, config, clients));
  app.get('/openapi.json', function serveContract(_req, res) {
    res.type('application/json').send(contractJson);
  });
  if (config.metricsToken) app.get('/metrics', metricsRoute(metrics, config.metricsToken, deps.metricsText));
  if (tokens) app.use(TOKEN_PATH, oauthTokenRoute(clients, tokens, tokenEndpointLimits(config, limits)));
  if (deps.webhooks) {
    const secrets = new WebhookSecretsRepository(deps.db);
    app.use(WEBHOOKS_PATH, webhookReceiverRoute({ ...deps.webhooks, secrets, logger: deps.logger }));
  }
  if (deps.console) app.use(deps.console.path, deps.console.router);
  app.use(routeThroughContract);
  app.use(errorHandler);
  return { app, api, metrics };
}
