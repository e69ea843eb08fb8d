import crypto from 'node:crypto';
import http from 'node:http';
import { ConfigError, loadConfig } from '../../src/config/load-config';
import { autoSecretChecks } from '../../src/http/security/oauth-token-route';
import { hashClientSecret } from '../../src/http/security/client-secrets';
import { htmlFile } from '../helpers/staging-fixtures';
import { AUTH, startTestGateway, type GatewayOptions, type TestGateway } from '../helpers/test-gateway';

const SIGNING_KEY = 'oauth-signing-key-for-limit-tests-0123456789';
const SECRET = 'platform-client-secret-for-limits-0123456789';
const OTHER_SECRET = 'other-client-secret-for-limits-0123456789';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/** A raw request: the tests send what fetch would not (a declared length beyond the limit, bodies of any size). */
function send(url: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method: options.method ?? 'POST', headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - t0 }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

const form = (extra: Record<string, string> = {}): Record<string, string> => ({ 'Content-Type': 'application/x-www-form-urlencoded', ...extra });
const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const token = (url: string, body: string, headers: Record<string, string> = {}): Promise<Answer> =>
  send(url, '/oauth2/token', { headers: form(headers), body });

/** An RFC 6749 §5.2 error answer: JSON with `error` (and a description), never cached. */
function expectOAuthError(answer: Answer, status: number, error: string): void {
  expect({ status: answer.status, error: (JSON.parse(answer.body) as { error?: unknown }).error }).toEqual({ status, error });
  expect(typeof (JSON.parse(answer.body) as { error_description?: unknown }).error_description).toBe('string');
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers['cache-control']).toBe('no-store');
}

async function oauthGateway(options: GatewayOptions = {}): Promise<TestGateway> {
  return startTestGateway('sqlite', {
    oauthClients: [`platform:${await hashClientSecret(SECRET)}`, `other:${await hashClientSecret(OTHER_SECRET)}`],
    oauthSigningKey: SIGNING_KEY,
    trustProxy: 'true',
    ...options,
  });
}

describe('the token endpoint answers in RFC 6749 form', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await oauthGateway();
  });
  afterAll(() => gw.close());

  it('answers an oversized body with 413 invalid_request, before reading it', async () => {
    const big = `grant_type=client_credentials&client_id=platform&client_secret=${'x'.repeat(64 * 1024)}`;
    expectOAuthError(await token(gw.url, big), 413, 'invalid_request');
    // Declared, not sent: the answer does not wait for a body that never comes.
    const declared = await new Promise<Answer>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        `${gw.url}/oauth2/token`,
        { method: 'POST', headers: form({ 'Content-Length': String(10 * 1024 * 1024) }), agent: false },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, ms: performance.now() - t0 }));
        },
      );
      req.on('error', reject);
      req.write('grant_type=client_credentials&');
    });
    expectOAuthError(declared, 413, 'invalid_request');
  });

  it('answers too many parameters, a repeated parameter and an unreadable body with invalid_request', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `p${i}=1`).join('&');
    const tooMany = await token(gw.url, many, { Authorization: basic('platform', SECRET) });
    expect([400, 413]).toContain(tooMany.status);
    expectOAuthError(tooMany, tooMany.status, 'invalid_request');
    expectOAuthError(await token(gw.url, `grant_type=client_credentials&client_id=platform&client_id=other&client_secret=${SECRET}`), 400, 'invalid_request');
    expectOAuthError(
      await token(gw.url, 'grant_type=client_credentials&grant_type=client_credentials', { Authorization: basic('platform', SECRET) }),
      400,
      'invalid_request',
    );
    const gzip = await send(gw.url, '/oauth2/token', {
      headers: form({ 'Content-Encoding': 'br', Authorization: basic('platform', SECRET) }),
      body: 'not brotli',
    });
    expect(gzip.status).toBeGreaterThanOrEqual(400);
    expect(gzip.status).toBeLessThan(500);
    expect((JSON.parse(gzip.body) as { error: string }).error).toBe('invalid_request');
  });

  it('answers client authentication failures 401 invalid_client with WWW-Authenticate, and grant problems 400', async () => {
    const wrong = await token(gw.url, 'grant_type=client_credentials', { Authorization: basic('platform', 'wrong') });
    expectOAuthError(wrong, 401, 'invalid_client');
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expectOAuthError(await token(gw.url, 'grant_type=password', { Authorization: basic('platform', SECRET) }), 400, 'unsupported_grant_type');
    expectOAuthError(await token(gw.url, 'scope=x', { Authorization: basic('platform', SECRET) }), 400, 'invalid_request');
    const ok = await token(gw.url, 'grant_type=client_credentials', { Authorization: basic('platform', SECRET) });
    expect(ok.status).toBe(200);
  });
});

describe('the token endpoint is rate limited per address and per client id', () => {
  it('answers 429 with Retry-After past the per-address budget, whatever the client id', async () => {
    const gw = await oauthGateway({ oauthTokenRateLimit: 5 });
    try {
      const from = { 'X-Forwarded-For': '203.0.113.7' };
      const answers: Answer[] = [];
      for (let i = 0; i < 8; i += 1)
        answers.push(await token(gw.url, `grant_type=client_credentials&client_id=${i % 2 ? 'platform' : 'nobody'}&client_secret=wrong`, from));
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      for (const a of answers.slice(5)) {
        expectOAuthError(a, 429, 'slow_down');
        expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(60);
      }
      // Another address has its own budget, and API keys on /v1 are not affected.
      expect(
        (await token(gw.url, `grant_type=client_credentials&client_id=platform&client_secret=${SECRET}`, { 'X-Forwarded-For': '203.0.113.8' })).status,
      ).toBe(200);
      expect((await gw.get('/v1/files', { ...AUTH, 'X-Forwarded-For': '203.0.113.7' })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('answers 429 past a client id budget, from any address, without touching other clients', async () => {
    const gw = await oauthGateway({ oauthTokenRateLimit: 5 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) {
        statuses.push(
          (await token(gw.url, 'grant_type=client_credentials', { Authorization: basic('platform', 'wrong'), 'X-Forwarded-For': `198.51.100.${i + 1}` }))
            .status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const other = await token(gw.url, 'grant_type=client_credentials', { Authorization: basic('other', OTHER_SECRET), 'X-Forwarded-For': '198.51.100.99' });
      expect(other.status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});

describe('secret checks are capped so serving is never starved', () => {
  // One check at a time and a flood beyond the 64 that may wait: at least the flood's tail finds no
  // turn however fast this machine's scrypt is (32 requests were not enough on a quiet CI machine).
  it('answers a flood of 96 parallel wrong secrets partly with 503 + Retry-After after at most about a second, and downloads go on', async () => {
    const gw = await oauthGateway({ oauthTokenRateLimit: 0, oauthTokenConcurrency: 1 });
    try {
      const blob = await gw.blobs.put(crypto.randomBytes(256 * 1024));
      await gw.writer.putFiles([
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
      const flood = Array.from({ length: 96 }, (_, i) =>
        token(gw.url, 'grant_type=client_credentials', { Authorization: basic('platform', `wrong-${i}`), 'X-Forwarded-For': `192.0.2.${i + 1}` }),
      );
      const download = await gw.get('/v1/files/test%3Abin/download', AUTH);
      const answers = await Promise.all(flood);
      expect(download.status).toBe(200);
      const statuses = answers.map((a) => a.status);
      expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
      const busy = answers.filter((a) => a.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const a of busy) {
        expectOAuthError(a, 503, 'temporarily_unavailable');
        expect(a.headers['retry-after']).toBe('1');
        // Held for their turn up to a second, not for as long as the flood lasts.
        expect(a.ms).toBeLessThan(5000);
      }
      // Afterwards the endpoint serves again.
      expect((await token(gw.url, 'grant_type=client_credentials', { Authorization: basic('platform', SECRET) })).status).toBe(200);
    } finally {
      await gw.close();
    }
  });
});

describe('the token endpoint limits as settings', () => {
  it('reads OAUTH_TOKEN_RATE_LIMIT and OAUTH_TOKEN_CONCURRENCY (auto: one less than the CPUs, from 1 to 2)', () => {
    expect(loadConfig({})).toMatchObject({ oauthTokenRateLimit: 30, oauthTokenConcurrency: 'auto' });
    expect(loadConfig({ OAUTH_TOKEN_RATE_LIMIT: '0', OAUTH_TOKEN_CONCURRENCY: '3' })).toMatchObject({ oauthTokenRateLimit: 0, oauthTokenConcurrency: 3 });
    for (const bad of ['0', '-1', '1.5', 'two', 'Auto']) expect(() => loadConfig({ OAUTH_TOKEN_CONCURRENCY: bad })).toThrow(ConfigError);
    expect([1, 2, 3, 4, 64].map((cpus) => autoSecretChecks(cpus))).toEqual([1, 1, 2, 2, 2]);
  });
});
