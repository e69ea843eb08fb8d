import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import request from 'supertest';
import { openStaging, type Staging } from '../../src/cli/open-staging';
import { loadConfig } from '../../src/config/load-config';
import { createApp } from '../../src/http/create-app';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { createDb } from '../../src/staging/database/create-db';
import { migrateLatest } from '../../src/staging/database/run-migrations';
import { StagingWriter } from '../helpers/staging-writer';
import { group, htmlFile, user } from '../helpers/staging-fixtures';
import { AUTH, TEST_KEYS } from '../helpers/test-gateway';

/**
 * Issue 27 (4), on SQLite: the database file is locked by another process (here one holding it in
 * exclusive locking mode, as a maintenance tool may). Every request answers 503
 * SERVICE_UNAVAILABLE with Retry-After once its statement has waited the statement timeout for the
 * lock (the read worker's `SQLITE_BUSY` was a 500), and `/readyz` answers at its own deadline even
 * while a request on the server thread waits for the lock (which holds the event loop, at most the
 * statement timeout). The test's deadlines are generous; they only say that an answer came.
 */
jest.setTimeout(60_000);

const ENDPOINTS = [
  '/v1/files?$top=5',
  '/v1/files/test:a',
  '/v1/files/test:a/permissions',
  '/v1/files/test:bin/download',
  '/v1/users',
  '/v1/groups',
  '/v1/groups/test:g/members',
  '/readyz',
] as const;

interface Answer {
  path: string;
  status: number | 'no answer';
  retryAfter?: string | undefined;
  code?: unknown;
}

describe('a gateway whose SQLite file another process holds locked', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-locked-'));
  const sqlitePath = path.join(dir, 'staging.sqlite');
  let lock: Database.Database | undefined;
  let staging: Staging;
  let url: string;
  let close: () => Promise<void>;

  const ask = async (p: string, deadlineMs = 20_000): Promise<Answer> => {
    try {
      const res = await request(url).get(p).set(AUTH).timeout(deadlineMs);
      const body = res.body as { error?: { code?: unknown } };
      return { path: p, status: res.status, retryAfter: res.headers['retry-after'], code: body.error?.code };
    } catch {
      return { path: p, status: 'no answer' };
    }
  };
  const unavailable = (p: string): Answer => ({ path: p, status: 503, retryAfter: '5', code: p === '/readyz' ? undefined : 'SERVICE_UNAVAILABLE' });
  const served = (p: string): Answer => ({ path: p, status: 200, retryAfter: undefined, code: undefined });
  const takeLock = (): void => {
    lock = new Database(sqlitePath);
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('begin exclusive; commit');
  };

  beforeAll(async () => {
    const config = loadConfig({
      SQLITE_PATH: sqlitePath,
      BLOB_DIR: path.join(dir, 'blobs'),
      DEMO_CONTENT: 'off',
      DATABASE_STATEMENT_TIMEOUT_MS: '300',
      READINESS_TIMEOUT_MS: '500',
    });
    const seed = createDb({ sqlitePath });
    await migrateLatest(seed);
    const writer = new StagingWriter(seed);
    staging = await openStaging(config, pino({ level: 'silent' }), { serving: true, migrate: false });
    const blob = await staging.blobs.put(Buffer.from('%PDF-1.4 a small deck'));
    await writer.putFiles([
      { file: htmlFile('test:a'), permissions: [{ type: 'USER', id: 'test:u1' }] },
      {
        file: htmlFile('test:bin', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
    await writer.putUsers([user('test:u1')]);
    await writer.putGroups([{ group: group('test:g'), members: [{ type: 'USER', id: 'test:u1' }] }]);
    await seed.destroy();
    const { app } = await createApp({
      config,
      db: staging.db,
      blobs: staging.blobs,
      logger: pino({ level: 'silent' }),
      apiKeys: TEST_KEYS,
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    });
    ({ url, close } = await listenOnLoopback(app));
    // The gateway's connections open as it first serves; the lock is taken before they do.
    takeLock();
  });
  afterAll(async () => {
    lock?.close();
    await close();
    await staging.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers every endpoint kind with 503 SERVICE_UNAVAILABLE and Retry-After, never 500', async () => {
    const answers: Answer[] = [];
    for (const p of ENDPOINTS) answers.push(await ask(p));
    expect(answers).toEqual(ENDPOINTS.map(unavailable));
  });

  it('answers /readyz at its deadline while a request waits for the lock', async () => {
    const waiting = ask('/v1/files/test:a');
    const ready = await ask('/readyz', 4_000);
    expect(ready).toEqual(unavailable('/readyz'));
    expect(await waiting).toEqual(unavailable('/v1/files/test:a'));
  });

  it('serves again once the lock is gone', async () => {
    lock?.close();
    lock = undefined;
    const answers: Answer[] = [];
    for (const p of ENDPOINTS) answers.push(await ask(p));
    expect(answers).toEqual(ENDPOINTS.map(served));
  });
});
