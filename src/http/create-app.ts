import express, { type Express } from 'express';
import helmet from 'helmet';
import type { OpenAPIBackend } from 'openapi-backend';
import type { BlobStore } from '../blobs/blob-store';
import type { Config } from '../config/config-schema';
import { GatewayError } from '../errors/gateway-error';
import type { Logger } from '../logging/create-logger';
import { SkipTokenCodec } from '../odata/skip-token';
import type { Db } from '../staging/create-db';
import { FilesRepository } from '../staging/files-repository';
import { IdentitiesRepository } from '../staging/identities-repository';
import { createApiBackend } from './create-api-backend';
import type { HandlerDeps } from './handler-context';
import { loadContract } from './load-contract';
import { errorHandler } from './middleware/error-handler';
import { requestLogger } from './middleware/request-logger';
import { ApiKeyVerifier } from './security/api-key-verifier';
import { createBearerAuth } from './security/bearer-auth';

export interface AppDeps {
  config: Pick<Config, 'publicBaseUrl' | 'pageSizeDefault' | 'pageSizeMax' | 'includeHtmlBodyInList' | 'trustProxy'>;
  db: Db;
  blobs: BlobStore;
  logger: Logger;
  apiKeys: readonly string[];
  skipTokenSecret: string;
}

/** `TRUST_PROXY` as Express understands it: a boolean, a hop count, or a list of addresses. */
export function parseTrustProxy(value: string): boolean | number | string[] {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((v) => v.trim());
}

/**
 * Builds the gateway app (no listening, no I/O beyond reading the contract): helmet on every
 * response, a request id and log line per request, the contract at /openapi.json, and every
 * other route through openapi-backend.
 */
export async function createApp(deps: AppDeps): Promise<{ app: Express; api: OpenAPIBackend }> {
  if (deps.apiKeys.length === 0) throw new Error('createApp needs at least one API key');
  const handlerDeps: HandlerDeps = {
    config: deps.config,
    db: deps.db,
    files: new FilesRepository(deps.db),
    identities: new IdentitiesRepository(deps.db),
    blobs: deps.blobs,
    skipTokens: new SkipTokenCodec(deps.skipTokenSecret),
    logger: deps.logger,
  };
  const contract = loadContract();
  const contractJson = JSON.stringify(contract);
  const api = await createApiBackend(loadContract(), handlerDeps, createBearerAuth(new ApiKeyVerifier(deps.apiKeys)));

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parseTrustProxy(deps.config.trustProxy));
  app.set('etag', false);
  app.use(requestLogger(deps.logger));
  app.use(helmet());
  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(contractJson);
  });
  app.use((req, res, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      throw new GatewayError('INPUT_VALIDATION_FAILED', 'The request path is not valid percent-encoding.');
    }
    api
      .handleRequest({ method: req.method, path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string> }, req, res)
      .catch(next);
  });
  app.use(errorHandler);
  return { app, api };
}
