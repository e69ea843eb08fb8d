import express, { type Express } from 'express';
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
import { loadContract } from './load-contract';
import { admission } from './middleware/admission';
import { allowedHosts } from './middleware/allowed-hosts';
import { errorHandler } from './middleware/error-handler';
import { refuseMalformedQuery } from './middleware/refuse-malformed-query';
import { requestLogger } from './middleware/request-logger';
import { requireHost } from './middleware/require-host';
import { resolveRawIdPath } from './middleware/resolve-raw-id-path';
import { securityHeaders } from './middleware/security-headers';
import { TOKEN_PATH, oauthTokenRoute } from './security/oauth-token-route';
import { operationHandlers } from './operation-handlers';
import { RateLimiter } from './rate-limits/rate-limiter';
import { RateLimitCounters } from './rate-limits/rate-limit-counters';
import { MEMORY_STORE, type RateLimitStore } from './rate-limits/rate-limit-store';
import { AccessTokens } from './security/access-tokens';
import { ApiKeyVerifier } from './security/api-key-verifier';
import { createBearerAuth } from './security/bearer-auth';
import { parseOAuthClients } from './security/client-secrets';
import { SecretRedactor } from './security/secret-redactor';
import { tokenAudience } from './security/token-audience';

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
  | 'rateLimitRequests'
  | 'rateLimitWindowSeconds'
  | 'authFailureLimit'
  | 'nodeEnv'
  | 'maxConcurrentRequests'
  | 'clientConcurrencyShare'
  | 'responseTimeoutMs'
  | 'metricsToken'
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
  'rateLimitRequests',
  'rateLimitWindowSeconds',
  'authFailureLimit',
  'nodeEnv',
  'maxConcurrentRequests',
  'clientConcurrencyShare',
  'responseTimeoutMs',
  'metricsToken',
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

/**
 * Builds the gateway app (no listening, no I/O beyond reading the contract): helmet on every
 * response (HSTS only over HTTPS), a request id and log line per request, load shedding, raw ids
 * in paths resolved to their encoded form, the contract at /openapi.json, OAuth's token endpoint when clients are configured, /metrics when a
 * token protects it, and every other route through the contract (`contractDispatcher`).
 */
export async function createApp(deps: AppDeps): Promise<{ app: Express; api: OpenAPIBackend; metrics: GatewayMetrics }> {
  if (deps.apiKeys.length === 0) throw new Error('createApp needs at least one API key');
  const config: AppConfig = { ...APP_DEFAULTS, ...deps.config };
  const metrics = new GatewayMetrics(deps.db);
  const handlerDeps: HandlerDeps = {
    config,
    db: deps.db,
    files: new FilesRepository(deps.db),
    identities: new IdentitiesRepository(deps.db),
    blobs: deps.blobs,
    skipTokens: new SkipTokenCodec(deps.skipTokenSecret),
    logger: deps.logger,
    metrics,
  };
  const clients = parseOAuthClients(config.oauthClients);
  if (clients.length > 0 && !config.oauthSigningKey) throw new Error('OAUTH_SIGNING_KEY is required when OAUTH_CLIENTS is set');
  const audience = tokenAudience(config.oauthAudience, config.publicBaseUrl, deps.skipTokenSecret);
  const tokens =
    clients.length > 0 && config.oauthSigningKey
      ? new AccessTokens(config.oauthSigningKey, audience, config.oauthTokenTtlSeconds, clients, deps.now)
      : undefined;
  const counters = new RateLimitCounters(deps.rateLimitStore ?? MEMORY_STORE, deps.logger, metrics.registry);
  const rateLimiter =
    config.rateLimitRequests > 0
      ? new RateLimiter(
          config.rateLimitRequests,
          config.rateLimitWindowSeconds,
          counters.counter('requests', config.rateLimitRequests, config.rateLimitWindowSeconds),
        )
      : undefined;
  // One count of failed authentications per address, spent by /v1 and the token endpoint alike.
  const authFailures = config.authFailureLimit > 0 ? counters.counter('auth-failures', config.authFailureLimit, AUTH_FAILURE_WINDOW_SECONDS) : undefined;
  const failureLimiter = authFailures
    ? new RateLimiter(config.authFailureLimit, AUTH_FAILURE_WINDOW_SECONDS, authFailures, 'failed authentications from this address')
    : undefined;
  const contractJson = JSON.stringify(loadContract());
  const api = await createApiBackend(loadContract());
  const routeThroughContract = contractDispatcher(api, operationHandlers(handlerDeps), {
    authenticate: createBearerAuth(new ApiKeyVerifier(deps.apiKeys), tokens),
    ...(rateLimiter ? { rateLimiter } : {}),
    ...(failureLimiter ? { failureLimiter } : {}),
  });
  const metricsAuth = config.metricsToken ? new ApiKeyVerifier([config.metricsToken]) : undefined;

  const app = express();
  // A request without `Host` is `requireHost`'s to refuse, in the envelope: Node must not first.
  setServerOptions(app, { requireHostHeader: false });
  app.disable('x-powered-by');
  const trustProxy = parseTrustProxy(config.trustProxy);
  app.set('trust proxy', trustProxy);
  app.set('etag', false);
  // Every secret the process holds in plain text, so none of them can reach a log line.
  const redactor = new SecretRedactor([
    ...deps.apiKeys,
    deps.skipTokenSecret,
    config.oauthSigningKey,
    config.metricsToken,
    ...config.oauthClients,
    ...clients.map((c) => c.secretHash),
  ]);
  app.use(requestLogger(deps.logger, redactor));
  app.use(metrics.middleware());
  app.use(securityHeaders());
  app.use(requireHost());
  // PUBLIC_BASE_URL's host is allowed too: it is the name a proxy in front forwards.
  if (config.allowedHosts.length > 0)
    app.use(allowedHosts([...config.allowedHosts, ...(config.publicBaseUrl ? [new URL(config.publicBaseUrl).hostname] : [])]));
  // A client's address: the socket's, unless a proxy is trusted to name it (`req.ip`).
  app.use(admission(config, { clientOf: trustProxy === false ? (req) => req.socket.remoteAddress ?? '' : (req) => req.ip ?? '' }));
  app.use(refuseMalformedQuery());
  app.use(resolveRawIdPath());
  app.get('/openapi.json', function serveContract(_req, res) {
    res.type('application/json').send(contractJson);
  });
  if (metricsAuth) {
    app.get('/metrics', async function serveMetrics(req, res, next) {
      res.locals.route = 'metrics';
      const presented = /^bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
      if (!presented || metricsAuth.verify(presented) === undefined) {
        next(new GatewayError('AUTHENTICATION_FAILED', 'Bearer token missing or invalid.'));
        return;
      }
      res.type(metrics.registry.contentType).send(deps.metricsText ? await deps.metricsText(metrics) : await metrics.registry.metrics());
    });
  }
  if (tokens) {
    const minSecretLength = config.nodeEnv === 'production' ? MIN_SECRET_LENGTH : 0;
    app.use(
      TOKEN_PATH,
      oauthTokenRoute(clients, tokens, {
        ratePerMinute: config.oauthTokenRateLimit,
        concurrency: config.oauthTokenConcurrency,
        counters,
        ...(authFailures ? { failures: authFailures } : {}),
        minSecretLength,
      }),
    );
  }
  app.use(routeThroughContract);
  app.use(errorHandler);
  return { app, api, metrics };
}
