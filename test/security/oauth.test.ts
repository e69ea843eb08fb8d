import { SignJWT, UnsecuredJWT } from 'jose';
import { hashClientSecret } from '../../src/http/security/client-secrets';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const SIGNING_KEY = 'oauth-signing-key-for-tests-0123456789abcdef';
const SECRET = 'platform-client-secret-0123456789';

describe('OAuth 2.0 client credentials', () => {
  let gw: TestGateway;
  let clock = Date.parse('2026-06-01T00:00:00Z');
  beforeAll(async () => {
    gw = await startTestGateway('sqlite', {
      oauthClients: [`platform:${await hashClientSecret(SECRET)}`, `other:${await hashClientSecret('another-secret-0123456789')}`],
      oauthSigningKey: SIGNING_KEY,
      oauthTokenTtlSeconds: 300,
      now: () => new Date(clock),
    });
  });
  afterAll(() => gw.close());

  const token = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${gw.url}/oauth2/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body });
  const basic = (id: string, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

  it('issues a short-lived bearer token for client authentication by HTTP Basic and by body fields', async () => {
    for (const res of [
      await token('grant_type=client_credentials', basic('platform', SECRET)),
      await token(`grant_type=client_credentials&client_id=platform&client_secret=${SECRET}`),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
      expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300 });
      const files = await gw.get('/v1/files', { Authorization: `Bearer ${body.access_token}` });
      expect(files.status).toBe(200);
    }
  });

  it.each([
    ['a wrong secret', () => token('grant_type=client_credentials', basic('platform', 'wrong-secret')), 401, 'invalid_client'],
    ['an unknown client', () => token('grant_type=client_credentials&client_id=nobody&client_secret=x'), 401, 'invalid_client'],
    ['no client authentication', () => token('grant_type=client_credentials'), 401, 'invalid_client'],
    ['another grant type', () => token('grant_type=password&username=a&password=b', basic('platform', SECRET)), 400, 'unsupported_grant_type'],
    ['no grant type', () => token('scope=x', basic('platform', SECRET)), 400, 'invalid_request'],
    [
      'credentials in both places',
      () => token(`grant_type=client_credentials&client_id=platform&client_secret=${SECRET}`, basic('platform', SECRET)),
      400,
      'invalid_request',
    ],
  ])('refuses %s with the RFC 6749 error', async (_what, call, status, error) => {
    const res = await call();
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: string }).error).toBe(error);
    if (status === 401) expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('answers a JSON body with 415', async () => {
    const res = await fetch(`${gw.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...basic('platform', SECRET) },
      body: '{"grant_type":"client_credentials"}',
    });
    expect(res.status).toBe(415);
  });

  it('refuses expired, tampered, wrong-audience, wrong-key and alg:none tokens', async () => {
    const issued = ((await (await token('grant_type=client_credentials', basic('platform', SECRET))).json()) as { access_token: string }).access_token;
    const key = new TextEncoder().encode(SIGNING_KEY);
    const now = Math.floor(clock / 1000);
    const sign = (claims: { aud?: string; iss?: string; exp?: number }, signingKey = key) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('platform')
        .setAudience(claims.aud ?? 'content-gateway')
        .setIssuer(claims.iss ?? 'content-gateway')
        .setIssuedAt(now)
        .setExpirationTime(claims.exp ?? now + 60)
        .sign(signingKey);
    const [h, p, s] = issued.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const bad = {
      tampered: `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'other' })).toString('base64url')}.${s}`,
      wrongAudience: await sign({ aud: 'someone-else' }),
      wrongIssuer: await sign({ iss: 'someone-else' }),
      expired: await sign({ exp: now - 10 }),
      wrongKey: await sign({}, new TextEncoder().encode('another-key-entirely-0123456789abcdef')),
      algNone: new UnsecuredJWT({ sub: 'platform' })
        .setAudience('content-gateway')
        .setIssuer('content-gateway')
        .setExpirationTime(now + 60)
        .encode(),
    };
    for (const [name, jwt] of Object.entries(bad)) {
      const res = await gw.get('/v1/files', { Authorization: `Bearer ${jwt}` });
      expect([name, res.status]).toEqual([name, 401]);
    }
    expect((await gw.get('/v1/files', { Authorization: `Bearer ${issued}` })).status).toBe(200);
    clock += 301_000; // past expires_in
    expect((await gw.get('/v1/files', { Authorization: `Bearer ${issued}` })).status).toBe(401);
    clock -= 301_000;
  });

  it('never logs client secrets or tokens', async () => {
    const res = await token('grant_type=client_credentials', basic('platform', SECRET));
    const { access_token } = (await res.json()) as { access_token: string };
    await gw.get('/v1/files', { Authorization: `Bearer ${access_token}` });
    await token(`grant_type=client_credentials&client_id=platform&client_secret=${SECRET}`);
    const log = gw.logLines.join('\n');
    expect(log).toContain('/oauth2/token');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain(access_token);
    expect(log).not.toContain(Buffer.from(`platform:${SECRET}`).toString('base64'));
  });
});
