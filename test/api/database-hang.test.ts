import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import pino from 'pino';
import request from 'supertest';
import { openStaging, type Staging } from '../../src/cli/open-staging';
import { loadConfig } from '../../src/config/load-config';
import { answerClientErrors } from '../../src/http/answer-client-errors';
import { createApp } from '../../src/http/create-app';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { StagingWriter } from '../helpers/staging-writer';
import { group, htmlFile, user } from '../helpers/staging-fixtures';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { AUTH, TEST_KEYS } from '../helpers/test-gateway';

/**
 * Issue 27 (4): with Postgres stopped, requests hung up to 30 s and `/readyz` did not answer; a
 * crash gave a 500 one run in two. Here the gateway reaches Postgres through a loopback proxy that
 * can freeze (connections stay open, no byte passes: a `SIGSTOP`ped server, a black-holed network)
 * and drop its connections (RST or FIN: a crash), so the shared test server itself is never
 * touched. Timeouts are short settings; the test's own deadlines are generous, and only say that
 * an answer came at all.
 */
jest.setTimeout(120_000);

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;

/** Every kind of request the gateway serves from the database, and readiness. */
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

/** Longer than any answer may take here: a request still unanswered by then is a hung request. */
const ANSWER_DEADLINE_MS = 20_000;

interface Answer {
  path: string;
  status: number | 'no answer';
  retryAfter?: string | undefined;
  code?: unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describeWithPostgres('a gateway whose Postgres stops answering or crashes (through a proxy)', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-hang-'));
  let proxy: TcpProxy;
  let staging: Staging;
  let url: string;
  let close: () => Promise<void>;

  const ask = async (p: string): Promise<Answer> => {
    try {
      const res = await request(url).get(p).set(AUTH).timeout(ANSWER_DEADLINE_MS);
      const body = res.body as { error?: { code?: unknown } };
      return { path: p, status: res.status, retryAfter: res.headers['retry-after'], code: body.error?.code };
    } catch {
      return { path: p, status: 'no answer' };
    }
  };
  const askAll = (): Promise<Answer[]> => Promise.all(ENDPOINTS.map(ask));
  /** What a request answers while the database cannot serve it: 503 SERVICE_UNAVAILABLE with Retry-After (readiness: its own body). */
  const unavailable = (p: string): Answer => ({ path: p, status: 503, retryAfter: '5', code: p === '/readyz' ? undefined : 'SERVICE_UNAVAILABLE' });
  const served = (p: string): Answer => ({ path: p, status: 200, retryAfter: undefined, code: undefined });

  beforeAll(async () => {
    const target = new URL(pgUrl as string);
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(target.href);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const config = loadConfig({
      DATABASE_URL: proxied.href,
      DATABASE_SCHEMA: schema,
      DATABASE_MAX_CONNECTIONS: '6',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
      READINESS_TIMEOUT_MS: '500',
      BLOB_DIR: blobDir,
      DEMO_CONTENT: 'off',
    });
    const logger = pino({ level: 'silent' });
    staging = await openStaging(config, logger, { serving: true });
    const blob = await staging.blobs.put(Buffer.from('%PDF-1.4 a small deck'));
    const writer = new StagingWriter(staging.db);
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
    await writer.putUsers([user('test:u1'), user('test:u2')]);
    await writer.putGroups([{ group: group('test:g'), members: [{ type: 'USER', id: 'test:u1' }] }]);
    const { app } = await createApp({
      config,
      db: staging.db,
      blobs: staging.blobs,
      logger,
      apiKeys: TEST_KEYS,
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    });
    ({ url, close } = await listenOnLoopback(app, (server) => answerClientErrors(server, logger)));
  });
  afterAll(async () => {
    proxy?.thaw();
    await close?.();
    await staging?.close();
    await proxy?.close();
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('drop schema if exists ?? cascade', [schema]);
    await admin.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  it('answers every endpoint kind and /readyz with 503 and Retry-After while Postgres does not answer, and serves again once it does', async () => {
    expect(await askAll()).toEqual(ENDPOINTS.map(served));
    proxy.freeze();
    // Requests on connections that were open (their statements are never answered) …
    expect(await askAll()).toEqual(ENDPOINTS.map(unavailable));
    // … and later ones, which must open connections the server never accepts.
    expect(await askAll()).toEqual(ENDPOINTS.map(unavailable));
    proxy.thaw();
    expect(await askAll()).toEqual(ENDPOINTS.map(served));
  });

  it('answers 503, never 500, when its connections are cut mid-request (RST or FIN), or while idle, and serves again after', async () => {
    const answers: Answer[] = [];
    for (const how of ['close', 'reset', 'close', 'reset', 'close', 'reset'] as const) {
      // Mid-request: requests wait on a frozen server (some on open connections, some opening one), then the connections go.
      proxy.freeze();
      const inFlight = askAll();
      await sleep(300);
      proxy.drop(how);
      proxy.thaw();
      answers.push(...(await inFlight));
      // While idle: the pools' connections go between requests.
      proxy.drop(how);
      answers.push(...(await askAll()));
    }
    const wrong = answers.filter(
      (a) => !(a.status === 200 || (a.status === 503 && a.retryAfter === '5' && (a.path === '/readyz' || a.code === 'SERVICE_UNAVAILABLE'))),
    );
    expect(wrong).toEqual([]);
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    expect(await askAll()).toEqual(ENDPOINTS.map(served));
  });
});
