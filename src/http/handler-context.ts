import type { BlobStore } from '../blobs/blob-store';
import type { Config } from '../config/config-schema';
import type { Logger } from '../logging/create-logger';
import type { SkipTokenCodec } from '../odata/skip-token';
import type { Db } from '../staging/database/create-db';
import type { FilesRepository } from '../staging/repositories/files-repository';
import type { IdentitiesRepository } from '../staging/repositories/identities-repository';
import type { GatewayMetrics } from './gateway-metrics';

/** Everything a request handler may use; built once per app by `createApp`. */
export interface HandlerDeps {
  config: Pick<Config, 'publicBaseUrl' | 'pageSizeDefault' | 'pageSizeMax' | 'includeHtmlBodyInList' | 'readinessTimeoutMs'>;
  db: Db;
  files: FilesRepository;
  identities: IdentitiesRepository;
  blobs: BlobStore;
  skipTokens: SkipTokenCodec;
  logger: Logger;
  /** What handlers count themselves (the rest is counted per request by `GatewayMetrics.middleware`). */
  metrics: Pick<GatewayMetrics, 'contentUnavailable'>;
}
