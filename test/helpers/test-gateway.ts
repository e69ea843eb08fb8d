import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import type { BlobStore } from '../../src/blobs/blob-store';
import { DbBlobStore } from '../../src/blobs/db-blob-store';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import type { TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';
import { answerClientErrors } from '../../src/http/answer-client-errors';
import { createApp, type AppConfig } from '../../src/http/create-app';
import type { RateLimitStore } from '../../src/http/rate-limits/rate-limit-store';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { StagingWriter } from './staging-writer';
import { ContractValidator, type ObservedResponse } from './contract-validator';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './test-databases';

export const TEST_KEYS = ['test-key-primary-0123456789abcdef', 'test-key-rotated-fedcba9876543210'] as const;
export const AUTH = { Authorization: `Bearer ${TEST_KEYS[0]}` };

const validator = new ContractValidator();

export interface TestGateway {
  url: string;
  database: TestDatabase;
  blobs: BlobStore;
  writer: StagingWriter;
  logLines: string[];
  /** GET through real HTTP; every response is checked against the contract (the test fails otherwise). */
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<request.Response>;
  /** Any other method, also contract-checked. */
  send(method: 'post' | 'put' | 'delete' | 'patch' | 'head', pathAndQuery: string, headers?: Record<string, string>): Promise<request.Response>;
  close(): Promise<void>;
}

export type GatewayOptions = Partial<AppConfig> & {
  now?: () => Date;
  blobStore?: 'directory' | 'database' | 's3';
  /** The S3-compatible server of `blobStore: 's3'` (each gateway keeps its blobs under a prefix of its own). */
  s3?: TestS3Server;
  skipTokenSecret?: string;
  rateLimitStore?: RateLimitStore;
};

async function checked(res: request.Response, method: string, pathAndQuery: string): Promise<request.Response> {
  const observed: ObservedResponse = {
    method,
    path: new URL(pathAndQuery, 'http://x').pathname,
    status: res.status,
    headers: res.headers,
    body: res.body,
  };
  const problems = await validator.problems(observed);
  if (problems.length) throw new Error(`Response breaks the contract:\n  ${problems.join('\n  ')}`);
  return res;
}

/**
 * The real gateway on a real loopback port: real migrations on SQLite or Postgres, a blob store
 * in a temp folder (or in the database), real API keys. Log lines are captured so tests can check what gets logged.
 */
export async function startTestGateway(kind: DatabaseKind = 'sqlite', options: GatewayOptions = {}): Promise<TestGateway> {
  const database = await createTestDatabase(kind);
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-blobs-'));
  const { now, blobStore, s3, skipTokenSecret, rateLimitStore, ...config } = options;
  const blobs = await openTestBlobs(blobStore, database, blobDir, s3);
  const logLines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
  const { app } = await createApp({
    config: { publicBaseUrl: undefined, ...config },
    ...(now ? { now } : {}),
    ...(rateLimitStore ? { rateLimitStore } : {}),
    db: database.db,
    blobs,
    logger,
    apiKeys: TEST_KEYS,
    skipTokenSecret: skipTokenSecret ?? crypto.randomBytes(32).toString('hex'),
  });
  const { url, close } = await listenOnLoopback(app, (server) => answerClientErrors(server, logger));
  const agent = request(url);
  return {
    url,
    database,
    blobs,
    writer: new StagingWriter(database.db),
    logLines,
    get: async (p, headers = {}) => checked(await agent.get(p).set(headers), 'GET', p),
    send: async (method, p, headers = {}) => checked(await agent[method](p).set(headers), method.toUpperCase(), p),
    close: async () => {
      await close();
      blobs.close?.();
      await database.destroy();
      fs.rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

async function openTestBlobs(store: GatewayOptions['blobStore'], database: TestDatabase, blobDir: string, s3: TestS3Server | undefined): Promise<BlobStore> {
  if (store === 'database') return new DbBlobStore(database.db);
  if (store !== 's3') return new FsBlobStore(blobDir);
  if (!s3) throw new Error("blobStore: 's3' needs the s3 option (startS3Server)");
  // Loaded here only: the AWS SDK took ~90 ms of every test file that starts a gateway.
  const { S3BlobStore } = await import('../../src/blobs/s3-blob-store');
  const where = { bucket: s3.bucket, region: s3.region, endpoint: s3.endpoint, credentials: s3.credentials };
  return new S3BlobStore({ ...where, prefix: path.basename(blobDir), forcePathStyle: true, spoolDir: blobDir }, database.db);
}
