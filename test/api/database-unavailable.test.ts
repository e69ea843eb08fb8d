import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import request from 'supertest';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { createApp } from '../../src/http/create-app';
import { responseError } from '../../src/http/middleware/error-handler';
import { DatabaseTimeoutError, isDatabaseUnavailable, markConnectionLost } from '../../src/lib/database-unavailable';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { createDb, type Db } from '../../src/staging/database/create-db';
import { AUTH, TEST_KEYS } from '../helpers/test-gateway';

/** A loopback port nothing listens on: a database server that is down. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a gateway whose Postgres cannot be reached', () => {
  let db: Db;
  let url: string;
  let close: () => Promise<void>;
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-down-'));
  const logLines: string[] = [];

  beforeAll(async () => {
    db = createDb({ databaseUrl: `postgres://gateway:s3cret-pass@127.0.0.1:${await closedPort()}/staging`, sqlitePath: ':memory:' });
    const { app } = await createApp({
      config: { publicBaseUrl: undefined },
      db,
      blobs: new FsBlobStore(blobDir),
      logger: pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) }),
      apiKeys: TEST_KEYS,
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    });
    ({ url, close } = await listenOnLoopback(app));
  });
  afterAll(async () => {
    await close();
    await db.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  it.each(['/v1/files?$top=5', '/v1/files/doc-1', '/v1/files/doc-1/download', '/v1/users', '/v1/groups', '/v1/groups/g/members'])(
    'answers %s with 503 SERVICE_UNAVAILABLE and Retry-After, in the error envelope',
    async (p) => {
      const res = await request(url).get(p).set(AUTH);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/cannot reach its database/) } });
    },
  );

  it('reports itself not ready, and never logs the password', async () => {
    expect((await request(url).get('/readyz')).status).toBe(503);
    expect(logLines.join('\n')).not.toContain('s3cret-pass');
    expect(logLines.some((l) => l.includes('ECONNREFUSED'))).toBe(true);
  });
});

describe('which errors say the database cannot be reached', () => {
  it('takes lost or refused connections, servers not taking work and pool timeouts; not a wrong statement', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'ENOTFOUND',
      'PROTOCOL_CONNECTION_LOST',
      '08006',
      '08001',
      '57P01',
      '57P03',
      '53300',
      'SQLITE_BUSY',
    ]) {
      expect([code, isDatabaseUnavailable(Object.assign(new Error('x'), { code }))]).toEqual([code, true]);
    }
    expect(isDatabaseUnavailable(Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }))).toBe(true);
    for (const code of ['42P01', '23505', '22P02', 'SQLITE_ERROR', 'SQLITE_CONSTRAINT', undefined, 42]) {
      expect([code, isDatabaseUnavailable(Object.assign(new Error('x'), { code }))]).toEqual([code, false]);
    }
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    expect(responseError(Object.assign(new Error('relation "files" does not exist'), { code: '42P01' })).status).toBe(500);
    expect(responseError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).status).toBe(503);
  });
});

describe('which errors a dying connection or a statement out of time raises (issue 27, 4)', () => {
  /** Every code that says "the database cannot serve this now": node-postgres, mysql2, the OS, Postgres, SQLite, the gateway's own bound. */
  const UNAVAILABLE = [
    ...['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE'],
    'PROTOCOL_CONNECTION_LOST',
    // shutting down, crashed, starting up, idle session closed, out of connections, idle in transaction, statement timeout, lock timeout
    ...['57P01', '57P02', '57P03', '57P05', '53300', '25P03', '57014', '55P03'],
    ...['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT', 'DATABASE_TIMEOUT'],
  ];

  it.each(UNAVAILABLE)('%s: unavailable, answered 503 with Retry-After', (code) => {
    const error = Object.assign(new Error('x'), { code });
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(responseError(error).headers).toEqual({ 'Retry-After': '5' });
  });

  it("takes the gateway's own bound, and any SQLSTATE of class 08 (connection exception)", () => {
    expect(isDatabaseUnavailable(new DatabaseTimeoutError('a statement', 1300))).toBe(true);
    fc.assert(fc.property(fc.stringMatching(/^08[0-9A-Z]{3}$/), (code) => isDatabaseUnavailable(Object.assign(new Error('x'), { code }))));
  });

  it('takes nothing else: another code (a wrong statement, a constraint, a bad password) is a 500', () => {
    const known = new Set(UNAVAILABLE);
    const other = fc
      .string({ minLength: 1, maxLength: 24 })
      .filter((code) => !known.has(code) && !/^08[0-9A-Z]{3}$/.test(code) && !code.startsWith('SQLITE_BUSY'));
    fc.assert(fc.property(other, (code) => !isDatabaseUnavailable(Object.assign(new Error('Connection terminated unexpectedly'), { code }))));
    for (const code of ['28P01', '3D000', '42P01', '23505', '57P04', '40001', 'SQLITE_CORRUPT'])
      expect([code, isDatabaseUnavailable(Object.assign(new Error('x'), { code }))]).toEqual([code, false]);
  });

  it('takes a code-less driver error only where the driver reported a lost connection with it (marked), never by its text', () => {
    const lost = new Error('Connection terminated unexpectedly');
    const sameText = new Error('Connection terminated unexpectedly');
    markConnectionLost(lost);
    expect([isDatabaseUnavailable(lost), isDatabaseUnavailable(sameText)]).toEqual([true, false]);
    expect(responseError(lost).status).toBe(503);
  });
});
