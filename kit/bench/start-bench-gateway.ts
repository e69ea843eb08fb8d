import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { BlobStore } from 'content-gateway';
import { DbBlobStore } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { S3BlobStore, type S3BlobStoreOptions } from 'content-gateway';
import { createApp, type AppConfig } from 'content-gateway';
import { listenOnLoopback } from 'content-gateway/lib';
import { createDb, type Db } from 'content-gateway';
import { createPrivateSchema } from 'content-gateway';
import { migrateLatest } from 'content-gateway';

export const BENCH_API_KEY = 'bench-key-0123456789abcdef0123456789';
export const AUTH_HEADERS: Readonly<Record<string, string>> = { Authorization: `Bearer ${BENCH_API_KEY}` };

export interface BenchGateway {
  url: string;
  db: Db;
  blobs: BlobStore;
  blobDir: string;
  /** The Postgres schema it serves from (`DATABASE_SCHEMA`), when on Postgres. */
  schema?: string;
  close(): Promise<void>;
}

/** The staging database and blob folder inside a bench data folder. */
export function benchPaths(dir: string): { sqlitePath: string; blobDir: string } {
  return { sqlitePath: path.join(dir, 'staging.sqlite'), blobDir: path.join(dir, 'blobs') };
}

/** The Postgres server the Postgres benchmarks use: `BENCH_DATABASE_URL`, else `TEST_DATABASE_URL`; undefined when neither is set. */
export function benchPostgresUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || undefined;
}

/**
 * Connections a Postgres bench gateway opens (`DATABASE_MAX_CONNECTIONS`): twice this host's cores,
 * the usual sizing for a database on them (the Postgres server here shares the bench's cores). A
 * pool of 20, one backend per client, served list pages at 0.53-0.66 of SQLite's rate against
 * 0.66-0.73 with 4, runs interleaved (kit/bench/HISTORY.md). All are knex's pool, list pages included.
 */
export function benchPostgresConnections(): number {
  return 2 * os.availableParallelism();
}

export interface BenchGatewayOptions {
  /** Bench data folder (SQLite database and blobs), kept on close; default a new temp folder, removed on close. */
  dir?: string;
  /** Serve from a new schema on this Postgres server (dropped on close) instead of SQLite. */
  postgresUrl?: string;
  config?: Partial<AppConfig>;
  blobStore?: 'directory' | 'database';
  /** Blobs in this S3 bucket instead (`BLOB_STORE=s3`). */
  s3?: S3BlobStoreOptions;
}

/**
 * The real gateway on 127.0.0.1:<free port> over a migrated staging database: SQLite in a new
 * temp folder (removed on close) or in `dir` when given (kept: another process staged it), or a
 * new schema of its own on `postgresUrl`. `config` overrides the app settings (OAuth, rate
 * limiting, ...) over the bench defaults.
 */
export async function startBenchGateway(options: BenchGatewayOptions = {}): Promise<BenchGateway> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const { sqlitePath, blobDir } = benchPaths(dir);
  const pg = options.postgresUrl ? await createPrivateSchema(options.postgresUrl, 'bench') : undefined;
  const db = pg
    ? createDb({ databaseUrl: options.postgresUrl, sqlitePath: ':memory:', searchPath: pg.schema, maxConnections: benchPostgresConnections() })
    : createDb({ sqlitePath });
  await migrateLatest(db);
  const blobs: BlobStore = options.s3 ? new S3BlobStore(options.s3, db) : options.blobStore === 'database' ? new DbBlobStore(db) : new FsBlobStore(blobDir);
  const { app } = await createApp({
    // Rate limiting off unless a bench turns it on: the figures measure serving, as they always have.
    config: {
      publicBaseUrl: undefined,
      pageSizeDefault: 100,
      pageSizeMax: 1000,
      includeHtmlBodyInList: false,
      trustProxy: 'false',
      rateLimitRequests: 0,
      ...options.config,
    },
    db,
    blobs,
    logger: pino({ level: 'silent' }),
    apiKeys: [BENCH_API_KEY],
    skipTokenSecret: crypto.randomBytes(32).toString('hex'),
  });
  const server = await listenOnLoopback(app);
  return {
    url: server.url,
    db,
    blobs,
    blobDir,
    ...(pg ? { schema: pg.schema } : {}),
    close: async () => {
      await server.close();
      blobs.close?.();
      await pg?.drop(db);
      await db.destroy();
      if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
