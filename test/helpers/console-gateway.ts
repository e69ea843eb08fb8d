import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { BlobHealth } from '../../src/console/blob-health';
import type { ConsoleContext } from '../../src/console/console-page';
import { CONSOLE_PAGES } from '../../src/console/console-pages';
import { CONSOLE_PATH, consoleRouter } from '../../src/console/console-router';
import { seedDemo } from '../../src/demo/seed-demo';
import { answerClientErrors } from '../../src/http/answer-client-errors';
import { createApp } from '../../src/http/create-app';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './test-databases';
import { TEST_KEYS } from './test-gateway';

export const CONSOLE_ADMIN_KEY = 'console-admin-key-0123456789abcdef';
export const ADMIN_BEARER = { Authorization: `Bearer ${CONSOLE_ADMIN_KEY}` };
/** What a browser sends once asked (HTTP Basic, the key as password): an ambient credential, so actions need the CSRF token. */
export const ADMIN_BASIC = { Authorization: `Basic ${Buffer.from(`admin:${CONSOLE_ADMIN_KEY}`).toString('base64')}` };

export interface ConsoleGateway {
  url: string;
  database: TestDatabase;
  close(): Promise<void>;
}

/**
 * The gateway with its console on, over staging filled by a real sync of the demo (the filesystem
 * adapter), on a loopback port: what `serve` mounts with CONSOLE_ENABLED, with `ctx` overrides.
 */
export async function startConsoleGateway(kind: DatabaseKind, ctx: Partial<ConsoleContext> = {}): Promise<ConsoleGateway> {
  const database = await createTestDatabase(kind);
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-console-blobs-'));
  const blobs = new FsBlobStore(blobDir);
  await seedDemo(database.db, blobs);
  const logger = pino({ level: 'silent' });
  const router = consoleRouter({
    ctx: {
      db: database.db,
      config: { databaseUrl: undefined, syncQueueSchema: 'pgboss' },
      logger,
      now: () => new Date(),
      blobHealth: new BlobHealth(database.db, blobs),
      ...ctx,
    },
    pages: CONSOLE_PAGES,
    adminKey: CONSOLE_ADMIN_KEY,
    crawlKeys: TEST_KEYS,
    secure: false,
  });
  const { app } = await createApp({
    config: { publicBaseUrl: undefined },
    db: database.db,
    blobs,
    logger,
    apiKeys: TEST_KEYS,
    skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    console: { path: CONSOLE_PATH, router },
  });
  const { url, close } = await listenOnLoopback(app, (server) => answerClientErrors(server, logger));
  return {
    url,
    database,
    close: async () => {
      await close();
      await database.destroy();
      fs.rmSync(blobDir, { recursive: true, force: true });
    },
  };
}
