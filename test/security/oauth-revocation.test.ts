import { decodeJwt } from 'jose';
import { hashClientSecret } from '../../src/http/security/client-secrets';
import { startTestGateway, type GatewayOptions, type TestGateway } from '../helpers/test-gateway';

/**
 * An access token is good only while the client it was issued to is configured, with the secret it
 * was issued for, on the deployment that issued it: removing a client (or giving it a new secret)
 * and restarting ends its tokens at once, not when they expire; and a second deployment that is
 * given the same signing key does not take the first one's tokens (the default audience is the
 * deployment's own). Real gateways on loopback, real tokens from /oauth2/token.
 */

const SIGNING_KEY = 'oauth-signing-key-for-revocation-0123456789';
const PLATFORM_SECRET = 'platform-client-secret-0123456789abcdef';
const OLD_SECRET = 'old-client-secret-0123456789abcdef0123';
const NEW_SECRET = 'new-client-secret-0123456789abcdef0123';
const SKIPTOKEN_SECRET = 'skiptoken-secret-shared-by-replicas-0123456789';

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function tokenFrom(gw: TestGateway, id: string, secret: string): Promise<string> {
  const res = await fetch(`${gw.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(id, secret) },
    body: 'grant_type=client_credentials',
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const statusWith = async (gw: TestGateway, token: string): Promise<number> => (await gw.get('/v1/files', { Authorization: `Bearer ${token}` })).status;

describe('access tokens end with their client', () => {
  const running: TestGateway[] = [];
  async function gateway(clients: string[], options: GatewayOptions = {}): Promise<TestGateway> {
    const gw = await startTestGateway('sqlite', { oauthClients: clients, oauthSigningKey: SIGNING_KEY, skipTokenSecret: SKIPTOKEN_SECRET, ...options });
    running.push(gw);
    return gw;
  }
  afterEach(async () => {
    for (const gw of running.splice(0)) await gw.close();
  });

  it('refuses the tokens of a client removed by the rotation the deployment guide describes, once restarted', async () => {
    const platform = `platform:${await hashClientSecret(PLATFORM_SECRET)}`;
    const old = `old:${await hashClientSecret(OLD_SECRET)}`;
    // Add the new client beside the old one; the platform still holds a token of the old one.
    const before = await gateway([old, platform]);
    const oldToken = await tokenFrom(before, 'old', OLD_SECRET);
    const platformToken = await tokenFrom(before, 'platform', PLATFORM_SECRET);
    expect(await statusWith(before, oldToken)).toBe(200);
    // Remove the old entry and restart (a new process: nothing remembered).
    await before.close();
    running.splice(0);
    const after = await gateway([platform]);
    expect(await statusWith(after, oldToken)).toBe(401);
    expect(await statusWith(after, platformToken)).toBe(200);
  });

  it('refuses the tokens of a client whose secret was changed, and takes those issued for the new one', async () => {
    const before = await gateway([`platform:${await hashClientSecret(OLD_SECRET)}`]);
    const oldToken = await tokenFrom(before, 'platform', OLD_SECRET);
    expect(await statusWith(before, oldToken)).toBe(200);
    const after = await gateway([`platform:${await hashClientSecret(NEW_SECRET)}`]);
    expect(await statusWith(after, oldToken)).toBe(401);
    expect(await statusWith(after, await tokenFrom(after, 'platform', NEW_SECRET))).toBe(200);
  });

  it("a second deployment given the same signing key and clients takes none of the first one's tokens (default audience: PUBLIC_BASE_URL)", async () => {
    const clients = [`platform:${await hashClientSecret(PLATFORM_SECRET)}`];
    const first = await gateway(clients, { publicBaseUrl: 'https://gateway-a.example.com' });
    const second = await gateway(clients, { publicBaseUrl: 'https://gateway-b.example.com' });
    const token = await tokenFrom(first, 'platform', PLATFORM_SECRET);
    expect(decodeJwt(token).aud).toBe('https://gateway-a.example.com');
    expect(await statusWith(first, token)).toBe(200);
    expect(await statusWith(second, token)).toBe(401);
    // A replica of the first deployment (same settings) takes it.
    const replica = await gateway(clients, { publicBaseUrl: 'https://gateway-a.example.com/' });
    expect(await statusWith(replica, token)).toBe(200);
  });

  it("without PUBLIC_BASE_URL the default audience is still the deployment's own: replicas sharing the $skiptoken secret agree, other deployments do not", async () => {
    const clients = [`platform:${await hashClientSecret(PLATFORM_SECRET)}`];
    const first = await gateway(clients);
    const replica = await gateway(clients);
    const other = await gateway(clients, { skipTokenSecret: 'skiptoken-secret-of-another-deployment-0123' });
    const token = await tokenFrom(first, 'platform', PLATFORM_SECRET);
    expect(decodeJwt(token).aud).not.toBe('content-gateway');
    expect(await statusWith(replica, token)).toBe(200);
    expect(await statusWith(other, token)).toBe(401);
  });

  it('OAUTH_AUDIENCE, when set, is the audience (deployments that must share tokens set the same one)', async () => {
    const clients = [`platform:${await hashClientSecret(PLATFORM_SECRET)}`];
    const first = await gateway(clients, { oauthAudience: 'urn:example:gateways', publicBaseUrl: 'https://gateway-a.example.com' });
    const second = await gateway(clients, { oauthAudience: 'urn:example:gateways', publicBaseUrl: 'https://gateway-b.example.com' });
    const token = await tokenFrom(first, 'platform', PLATFORM_SECRET);
    expect(decodeJwt(token).aud).toBe('urn:example:gateways');
    expect(await statusWith(second, token)).toBe(200);
  });
});
