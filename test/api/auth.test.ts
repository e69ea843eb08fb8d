import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { AUTH, TEST_KEYS, startTestGateway, type TestGateway } from '../helpers/test-gateway';

describe('authentication', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Dozens of refused credentials on purpose: no failure budget (test/security/auth-failure-limit.test.ts tests it).
    gw = await startTestGateway('sqlite', { authFailureLimit: 0 });
  });
  afterAll(() => gw.close());

  const protectedPaths = [
    '/v1/files',
    '/v1/files/x',
    '/v1/files/x/download',
    '/v1/files/x/permissions',
    '/v1/files/permissions/metadata',
    '/v1/users',
    '/v1/groups',
    '/v1/groups/x/members',
  ];

  it.each(protectedPaths)('when %s is called without credentials or with a wrong key, then 401 AUTHENTICATION_FAILED', async (path) => {
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: 'Bearer wrong-key' },
      { Authorization: 'wrong-key' },
      { Authorization: 'Bearer ' },
      { Authorization: 'Basic dXNlcjpwYXNz' },
    ]) {
      const res = await gw.get(path, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'AUTHENTICATION_FAILED', message: 'Bearer token missing or invalid.' } });
    }
  });

  it('accepts the key as "Bearer <key>", as the bare key, and every configured (rotated) key', async () => {
    for (const headers of [AUTH, { Authorization: TEST_KEYS[0] }, { Authorization: `bearer ${TEST_KEYS[1]}` }, { Authorization: TEST_KEYS[1] }]) {
      expect((await gw.get('/v1/files', headers)).status).toBe(200);
    }
  });

  it('refuses a key in the query string (it would end up in logs)', async () => {
    expect((await gw.get(`/v1/files?access_token=${TEST_KEYS[0]}`)).status).toBe(401);
  });

  it('never writes a key or the Authorization header to the log', async () => {
    await gw.get('/v1/files', AUTH);
    await gw.get('/v1/files', { Authorization: 'Bearer leaked-wrong-key-123' });
    await gw.get(`/v1/files?access_token=${TEST_KEYS[1]}`);
    const log = gw.logLines.join('\n');
    expect(log).toContain('request completed');
    for (const secret of [...TEST_KEYS, 'leaked-wrong-key-123']) expect(log).not.toContain(secret);
  });

  it('sets helmet headers and a request id on every response, errors included', async () => {
    for (const [path, headers] of [
      ['/v1/files', AUTH],
      ['/v1/files', {}],
      ['/nope', AUTH],
      ['/healthz', {}],
    ] as const) {
      const res = await gw.get(path, headers);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['content-security-policy']).toBeDefined();
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Exactly the headers helmet itself sets on a plain Express app.
    const plain = express();
    plain.use(helmet({ strictTransportSecurity: false }));
    plain.get('/', (_req, res) => {
      res.end();
    });
    const reference = (await request(plain).get('/')).headers;
    const ours = (await gw.get('/healthz')).headers;
    const names = Object.keys(reference).filter((h) => !['date', 'connection', 'content-length', 'keep-alive'].includes(h));
    expect(names.length).toBeGreaterThan(8);
    for (const name of names) expect([name, ours[name]]).toEqual([name, reference[name]]);
    expect(ours['strict-transport-security']).toBeUndefined();
    const echoed = await gw.get('/healthz', { 'X-Request-Id': 'crawl-42.page-7' });
    expect(echoed.headers['x-request-id']).toBe('crawl-42.page-7');
  });

  it('answers unknown routes with 404 and other methods with 405, in the envelope', async () => {
    const missing = await gw.get('/v2/files', AUTH);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const post = await gw.send('post', '/v1/files', AUTH);
    expect(post.status).toBe(405);
    expect(post.body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(post.headers.allow).toBe('GET, HEAD');
    // HEAD is answered as GET is (test/api/head-requests.test.ts).
    expect((await gw.send('head', '/v1/files', AUTH)).status).toBe(200);
  });
});

describe('health', () => {
  it('serves /healthz and /readyz without credentials; /readyz reports a dead database as 503', async () => {
    const gw = await startTestGateway('sqlite');
    try {
      expect((await gw.get('/healthz')).body).toEqual({ status: 'ok' });
      expect((await gw.get('/readyz')).body).toEqual({ status: 'ok', database: 'ok' });
      await gw.database.db.destroy();
      const res = await gw.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', database: 'unreachable' });
    } finally {
      await gw.close().catch(() => undefined);
    }
  });
});
