import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import request from 'supertest';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { createApp } from '../../src/http/create-app';
import { responseError } from '../../src/http/middleware/error-handler';
import { isDatabaseUnavailable } from '../../src/lib/database-unavailable';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { createDb, type Db } from '../../src/staging/create-db';
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
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'PROTOCOL_CONNECTION_LOST', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT', '08006', '08001', '57P01', '57P03', '53300', 'SQLITE_BUSY']) {
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
