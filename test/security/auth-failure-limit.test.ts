import { hashClientSecret } from '../../src/http/security/client-secrets';
import { AUTH, startTestGateway, type GatewayOptions, type TestGateway } from '../helpers/test-gateway';

/**
 * Failed authentication has a small budget of its own per caller's address (`AUTH_FAILURE_LIMIT`
 * a minute, default 30): beyond it a wrong or missing credential is answered 429 with
 * `Retry-After` instead of 401. It is spent only by failures, so a client presenting a valid key
 * or token is never slowed by it, whatever its address has failed. Real gateways on loopback.
 */

const SIGNING_KEY = 'oauth-signing-key-for-failure-limit-0123456789';
const SECRET = 'platform-client-secret-for-failure-limit-0123';

const wrong = (i: number): Record<string, string> => ({ Authorization: `Bearer wrong-key-${i}-0123456789abcdef0123456789` });

/** `count` requests, `batch` at a time (so the answers come in a known order). */
async function many<T>(count: number, batch: number, one: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += batch) out.push(...(await Promise.all(Array.from({ length: Math.min(batch, count - i) }, (_, j) => one(i + j)))));
  return out;
}

describe('failed authentication has its own small budget per address', () => {
  const running: TestGateway[] = [];
  async function gateway(options: GatewayOptions = {}): Promise<TestGateway> {
    const gw = await startTestGateway('sqlite', options);
    running.push(gw);
    return gw;
  }
  afterEach(async () => {
    for (const gw of running.splice(0)) await gw.close();
  });

  it('answers 600 wrong keys from one address with 30 × 401, then 429 RATE_LIMIT_EXCEEDED with Retry-After (the defaults)', async () => {
    const gw = await gateway();
    const answers = await many(600, 20, (i) => gw.get('/v1/files', wrong(i)));
    const refused = answers.filter((r) => r.status === 401);
    const throttled = answers.filter((r) => r.status === 429);
    expect([refused.length, throttled.length]).toEqual([30, 570]);
    for (const r of throttled) {
      expect(r.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      const retryAfter = Number(r.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // The headers of a failure are the failure budget's, and count it down.
    expect(new Set(refused.map((r) => r.headers['x-ratelimit-limit']))).toEqual(new Set(['30']));
    expect(refused.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => b - a)).toEqual(Array.from({ length: 30 }, (_, i) => 29 - i));
    // No credential at all is a failed authentication too.
    expect((await gw.get('/v1/files')).status).toBe(429);
  });

  it('never slows a valid key or token from the same address: served while the address is over its failure budget, and spending none of it', async () => {
    const gw = await gateway({ authFailureLimit: 5, oauthClients: [`platform:${await hashClientSecret(SECRET)}`], oauthSigningKey: SIGNING_KEY });
    // Valid requests first: they leave the failure budget whole.
    const served = await many(50, 10, () => gw.get('/v1/files', AUTH));
    expect(served.every((r) => r.status === 200)).toBe(true);
    const failures = await many(8, 1, (i) => gw.get('/v1/files', wrong(i)));
    expect(failures.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Over budget, the valid key and a real token are still served, with the client's own budget in the headers.
    const withKey = await gw.get('/v1/files', AUTH);
    expect([withKey.status, withKey.headers['x-ratelimit-limit']]).toEqual([200, '300000']);
    const token = await fetch(`${gw.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=platform&client_secret=${SECRET}`,
    });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    expect((await gw.get('/v1/files', { Authorization: `Bearer ${access_token}` })).status).toBe(200);
  });

  it('counts per address as the request rate limit does (req.ip: X-Forwarded-For only from a trusted proxy)', async () => {
    const behindProxy = await gateway({ authFailureLimit: 3, trustProxy: 'true' });
    const from = (ip: string, i: number) => behindProxy.get('/v1/files', { ...wrong(i), 'X-Forwarded-For': ip });
    expect((await many(5, 1, (i) => from('203.0.113.7', i))).map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
    expect((await from('203.0.113.8', 0)).status).toBe(401);
    // Without a trusted proxy the header is the caller's to write, so it changes nothing.
    const direct = await gateway({ authFailureLimit: 3 });
    const statuses = (await many(5, 1, (i) => direct.get('/v1/files', { ...wrong(i), 'X-Forwarded-For': `198.51.100.${i}` }))).map((r) => r.status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it('counts wrong client secrets at /oauth2/token in the same budget (429 slow_down), never the right one', async () => {
    const gw = await gateway({
      authFailureLimit: 4,
      oauthTokenRateLimit: 0,
      oauthClients: [`platform:${await hashClientSecret(SECRET)}`],
      oauthSigningKey: SIGNING_KEY,
    });
    const token = (secret: string) =>
      fetch(`${gw.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=platform&client_secret=${secret}`,
      });
    expect((await gw.get('/v1/files', wrong(0))).status).toBe(401);
    const answers = await many(5, 1, (i) => token(`wrong-secret-${i}-0123456789abcdef0123456789`));
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
    const refused = answers[4] as Response;
    expect((await refused.json()) as { error: string }).toMatchObject({ error: 'slow_down' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await gw.get('/v1/files', wrong(1))).status).toBe(429);
    expect((await token(SECRET)).status).toBe(200);
  });

  it('AUTH_FAILURE_LIMIT=0 turns the budget off', async () => {
    const gw = await gateway({ authFailureLimit: 0 });
    const statuses = (await many(60, 20, (i) => gw.get('/v1/files', wrong(i)))).map((r) => r.status);
    expect(statuses).toEqual(Array.from({ length: 60 }, () => 401));
  });
});
