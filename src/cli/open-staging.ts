import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BlobStore } from '../blobs/blob-store';
import { DbBlobStore } from '../blobs/db-blob-store';
import { FsBlobStore } from '../blobs/fs-blob-store';
import type { S3BlobStoreOptions } from '../blobs/s3-blob-store';
import type { Config } from '../config/config-schema';
import { createLogger, type Logger } from '../logging/create-logger';
import { createDb, type Db } from '../staging/database/create-db';
import { migrateLatest } from '../staging/database/run-migrations';

export interface Staging {
  db: Db;
  blobs: BlobStore;
  close(): Promise<void>;
}

/**
 * Opens the configured database (running pending migrations, unless `migrate` is false: a serving
 * worker whose primary migrated before it started) and the configured blob store. `maxConnections`:
 * this process's share of `DATABASE_MAX_CONNECTIONS` (a serving worker's), else all of it.
 * Connections open within `DATABASE_CONNECT_TIMEOUT_MS` in every command; serving statements are
 * bound by `DATABASE_STATEMENT_TIMEOUT_MS`, and migrations, which may rightly take longer, then run
 * on a database of their own without that bound, closed before serving starts.
 */
export async function openStaging(
  config: Config,
  logger: Logger,
  options: { migrate?: boolean; maxConnections?: number; serving?: boolean } = {},
): Promise<Staging> {
  const serving = options.serving === true;
  const base = {
    databaseUrl: config.databaseUrl,
    sqlitePath: config.sqlitePath,
    maxConnections: options.maxConnections ?? config.databaseMaxConnections,
    ...(config.databaseSchema ? { searchPath: config.databaseSchema } : {}),
  };
  const bounded = serving && config.databaseStatementTimeoutMs > 0;
  const timeouts = { connectMs: config.databaseConnectTimeoutMs, statementMs: bounded ? config.databaseStatementTimeoutMs : 0 };
  const migrateApart = bounded && options.migrate !== false && (Boolean(config.databaseUrl) || config.sqlitePath !== ':memory:');
  if (migrateApart) await migrateOn(createDb({ ...base, timeouts: { connectMs: timeouts.connectMs, statementMs: 0 } }), logger);
  const db = createDb({ ...base, timeouts });
  if (options.migrate !== false && !migrateApart) await migrateOn(db, logger, { keepOpen: true });
  const blobs = await openBlobs(config, db);
  return {
    db,
    blobs,
    close: async () => {
      blobs.close?.();
      await db.destroy();
    },
  };
}

/** Runs pending migrations on `db`, then closes it (unless `keepOpen`, when it is closed only on failure). */
async function migrateOn(db: Db, logger: Logger, options: { keepOpen?: boolean } = {}): Promise<void> {
  try {
    const applied = await migrateLatest(db);
    if (applied.length) logger.info({ migrations: applied }, 'applied staging migrations');
  } catch (error) {
    await db.destroy();
    throw error;
  }
  if (!options.keepOpen) await db.destroy();
}

/** Opens the configured staging (migrating it), runs `work` on it and closes it, whatever happens. */
export async function withStaging<T>(config: Config, work: (staging: Staging) => Promise<T>): Promise<T> {
  const staging = await openStaging(config, createLogger({ level: config.logLevel }));
  try {
    return await work(staging);
  } finally {
    await staging.close();
  }
}

/** The configured blob store; the S3 one (and the AWS SDK) is loaded only when configured. */
async function openBlobs(config: Config, db: Db): Promise<BlobStore> {
  if (config.blobStore === 'database') return new DbBlobStore(db);
  if (config.blobStore === 'directory') return new FsBlobStore(config.blobDir);
  const { S3BlobStore } = await import('../blobs/s3-blob-store');
  return new S3BlobStore(s3Options(config), db);
}

/** The S3 store's options from the settings (`loadConfig` made sure the bucket is set). */
export function s3Options(config: Config): S3BlobStoreOptions {
  const { s3AccessKeyId: accessKeyId, s3SecretAccessKey: secretAccessKey } = config;
  return {
    bucket: config.s3Bucket ?? '',
    prefix: config.s3Prefix,
    region: config.s3Region,
    endpoint: config.s3Endpoint,
    forcePathStyle: config.s3ForcePathStyle,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

/** Where a generated development key is kept: beside the embedded database. */
export function devKeyPath(config: Config): string {
  return path.join(path.dirname(path.resolve(config.sqlitePath)), 'dev-api-key');
}

/**
 * The configured API keys; outside production, with none configured, a random key generated once
 * and kept (mode 0600) in the data folder, so `npm start` works on a fresh clone without ever
 * running unauthenticated. Its path is returned for the start-up message; the key is never logged.
 */
export function resolveApiKeys(config: Config): { keys: string[]; generatedAt?: string } {
  if (config.apiKeys.length > 0) return { keys: config.apiKeys };
  const file = devKeyPath(config);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  return { keys: [fs.readFileSync(file, 'utf8').trim()], generatedAt: file };
}
