import crypto from 'node:crypto';
import http from 'node:http';
import { ApiKeyVerifier } from '../../src/http/security/api-key-verifier';
import { AUTH, TEST_KEYS, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { htmlFile } from '../helpers/staging-fixtures';

/** A raw request, so tests can send what fetch refuses to (huge headers, GET bodies). */
function raw(
  url: string,
  options: { path: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${options.path}`, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

describe('rate limiting', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { rateLimitRequests: 100, rateLimitWindowSeconds: 60, maxConcurrentRequests: 0 });
    await gw.writer.putFiles([{ file: htmlFile('test:a'), permissions: [] }]);
  });
  afterAll(() => gw.close());

  it('answers a burst of 500 requests with 200s then 429s, truthful headers throughout, and no 5xx', async () => {
    const results = await Promise.all(Array.from({ length: 500 }, () => gw.get('/v1/files', AUTH)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(400);
    for (const r of results) {
      const limit = Number(r.headers['x-ratelimit-limit']);
      const remaining = Number(r.headers['x-ratelimit-remaining']);
      const reset = Number(r.headers['x-ratelimit-reset']);
      expect(limit).toBe(100);
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThanOrEqual(limit);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
      if (r.status === 429) {
        expect(remaining).toBe(0);
        expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(r.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      }
    }
    // Remaining counts down: the headers are not static placeholders.
    const remainings = new Set(results.filter((r) => r.status === 200).map((r) => r.headers['x-ratelimit-remaining']));
    expect(remainings.size).toBe(100);
  });

  it('keeps separate budgets per client (a rotated key is another client)', async () => {
    const res = await gw.get('/v1/files', { Authorization: `Bearer ${TEST_KEYS[1]}` });
    expect(res.status).toBe(200);
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(99);
  });

  it("limits failed logins by address with a budget of their own (AUTH_FAILURE_LIMIT, 30 a minute), which no client's budget pays for", async () => {
    const results = await Promise.all(Array.from({ length: 120 }, () => gw.get('/v1/files', { Authorization: 'Bearer guess' })));
    expect(results.filter((r) => r.status === 401).length).toBe(30);
    expect(results.filter((r) => r.status === 429).length).toBe(90);
    const rotated = await gw.get('/v1/files', { Authorization: `Bearer ${TEST_KEYS[1]}` });
    expect([rotated.status, Number(rotated.headers['x-ratelimit-remaining'])]).toEqual([200, 98]);
  });

  it("is on by default: truthful headers on every authenticated answer and on 401s (the failure budget's), none where nothing is authenticated", async () => {
    const byDefault = await startTestGateway('sqlite');
    try {
      const first = await byDefault.get('/v1/files', AUTH);
      const second = await byDefault.get('/v1/files/test%3Anope', AUTH);
      const refused = await byDefault.get('/v1/files', { Authorization: 'Bearer guess' });
      for (const [res, limit, remaining] of [
        [first, 300_000, 299_999],
        [second, 300_000, 299_998],
        [refused, 30, 29],
      ] as const) {
        expect(Number(res.headers['x-ratelimit-limit'])).toBe(limit);
        expect(Number(res.headers['x-ratelimit-remaining'])).toBe(remaining);
        expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
        expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
      }
      expect([second.status, refused.status]).toEqual([404, 401]);
      const health = await byDefault.get('/healthz');
      expect(Object.keys(health.headers).filter((h) => h.includes('ratelimit'))).toEqual([]);
    } finally {
      await byDefault.close();
    }
  });

  it('sends no rate-limit headers when rate limiting is off (RATE_LIMIT_REQUESTS=0)', async () => {
    const off = await startTestGateway('sqlite', { rateLimitRequests: 0 });
    try {
      const res = await off.get('/v1/files', AUTH);
      expect(Object.keys(res.headers).filter((h) => h.includes('ratelimit'))).toEqual([]);
    } finally {
      await off.close();
    }
  });
});

describe('load shedding and request limits', () => {
  it('sheds requests beyond the concurrency cap with 503 and Retry-After instead of queueing', async () => {
    // One client holding the whole cap: no share (CLIENT_CONCURRENCY_SHARE, tested in admission-load).
    const gw = await startTestGateway('sqlite', { maxConcurrentRequests: 2, clientConcurrencyShare: 1 });
    try {
      const bytes = crypto.randomBytes(8 * 1024 * 1024);
      const blob = await gw.blobs.put(bytes);
      await gw.writer.putFiles([
        {
          file: htmlFile('test:big', {
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
      // Two slow downloads hold both slots (their bodies are not read yet).
      const held = await Promise.all(
        [0, 1].map(() => new Promise<http.IncomingMessage>((resolve) => http.get(`${gw.url}/v1/files/test%3Abig/download`, { headers: AUTH }, resolve))),
      );
      const shed = await gw.get('/v1/files', AUTH);
      expect(shed.status).toBe(503);
      expect(shed.headers['retry-after']).toBe('1');
      expect(shed.body.error.code).toBe('SERVICE_UNAVAILABLE');
      for (const res of held) res.destroy();
      await new Promise((r) => setTimeout(r, 50));
      expect((await gw.get('/v1/files', AUTH)).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('refuses oversized headers, URLs and query strings, and GET bodies, with 4xx', async () => {
    const gw = await startTestGateway('sqlite', { maxUrlLength: 2048 });
    try {
      const bigHeader = await raw(gw.url, { path: '/v1/files', headers: { ...AUTH, 'X-Padding': 'x'.repeat(64 * 1024) } });
      expect(bigHeader.status).toBe(431);
      const longQuery = await gw.get(`/v1/files?$filter=${'a'.repeat(3000)}`, AUTH);
      expect(longQuery.status).toBe(414);
      expect(longQuery.body.error).toEqual({ code: 'URI_TOO_LONG', message: expect.stringMatching(/longer than 2048/) });
      const json = JSON.stringify({ x: 'y'.repeat(1000) });
      const withBody = await raw(gw.url, {
        path: '/v1/files',
        headers: { ...AUTH, 'Content-Type': 'application/json', 'Content-Length': String(json.length) },
        body: json,
      });
      expect(withBody.status).toBe(400);
      expect(JSON.parse(withBody.body).error.code).toBe('INPUT_VALIDATION_FAILED');
      const tokenBody = await raw(gw.url, {
        path: '/v1/files',
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'a='.padEnd(200_000, 'b'),
      });
      expect(tokenBody.status).toBeGreaterThanOrEqual(400);
      expect(tokenBody.status).toBeLessThan(500);
    } finally {
      await gw.close();
    }
  });

  it('sends HSTS only over HTTPS (here: a trusted proxy saying so)', async () => {
    const gw = await startTestGateway('sqlite', { trustProxy: 'true' });
    try {
      expect((await gw.get('/healthz')).headers['strict-transport-security']).toBeUndefined();
      expect((await gw.get('/healthz', { 'X-Forwarded-Proto': 'https' })).headers['strict-transport-security']).toMatch(/max-age=31536000/);
    } finally {
      await gw.close();
    }
  });
});

describe('credential comparison', () => {
  it('compares a presented key with every configured key through timingSafeEqual, whichever matches', () => {
    const verifier = new ApiKeyVerifier(['key-one-0123456789', 'key-two-0123456789', 'key-three-012345678']);
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    try {
      for (const presented of ['key-one-0123456789', 'key-three-012345678', 'nope', 'x'.repeat(500)]) {
        spy.mockClear();
        verifier.verify(presented);
        expect(spy).toHaveBeenCalledTimes(3);
        for (const [a, b] of spy.mock.calls) expect([(a as Buffer).length, (b as Buffer).length]).toEqual([32, 32]);
      }
      expect(verifier.verify('key-three-012345678')).toBe(2);
      expect(verifier.verify('key-three-01234567')).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
  });
});
