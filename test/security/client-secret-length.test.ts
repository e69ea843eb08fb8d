import { buildProgram } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';
import { hashClientSecret, verifyClientSecret } from '../../src/http/security/client-secrets';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * Client secrets are stored as scrypt hashes, so their length cannot be checked at start-up.
 * Instead `hash-secret` refuses to hash one under 32 characters, and in production the token
 * endpoint refuses a presented secret under 32 characters (before any secret check), so a client
 * configured with a short secret can never get a token there.
 */

const LONG = 'platform-client-secret-0123456789'; // 33
const SHORT = 'short-client-secret-0123456789a'; // 31

async function hashSecret(args: string[], env: Record<string, string> = {}): Promise<{ printed: string[]; error?: Error }> {
  const printed: string[] = [];
  const runtime: Runtime = {
    env,
    print: (line) => printed.push(line),
    listen: () => Promise.reject(new Error('no listening here')),
    onShutdown: () => undefined,
    setExitCode: () => undefined,
    interactive: false,
  };
  const program = (await buildProgram(runtime)).exitOverride();
  try {
    await program.parseAsync(['node', 'content-gateway', 'hash-secret', ...args]);
    return { printed };
  } catch (error) {
    return { printed, error: error as Error };
  }
}

describe('hash-secret', () => {
  it('refuses a secret under 32 characters from CLIENT_SECRET (and any secret as an argument), and prints nothing', async () => {
    expect(SHORT).toHaveLength(31);
    const asArgument = await hashSecret(['platform', SHORT]);
    expect(asArgument.error?.message).toMatch(/no secret on the command line/);
    expect(asArgument.error?.message).not.toContain(SHORT);
    expect(asArgument.printed).toEqual([]);
    for (const outcome of [await hashSecret(['platform'], { CLIENT_SECRET: SHORT })]) {
      expect(outcome.error?.message).toMatch(/at least 32 characters/);
      expect(outcome.error?.message).not.toContain(SHORT);
      expect(outcome.printed).toEqual([]);
    }
  });

  it('hashes a secret of 32 characters or more into an OAUTH_CLIENTS entry', async () => {
    const { printed, error } = await hashSecret(['platform'], { CLIENT_SECRET: LONG });
    expect(error).toBeUndefined();
    const [entry] = printed;
    expect(entry).toMatch(/^platform:scrypt\$/);
    expect(await verifyClientSecret(LONG, (entry as string).slice('platform:'.length))).toBe(true);
  });
});

describe('the token endpoint in production', () => {
  let production: TestGateway;
  let development: TestGateway;
  beforeAll(async () => {
    const clients = [`short:${await hashClientSecret(SHORT)}`, `long:${await hashClientSecret(LONG)}`];
    const oauth = { oauthClients: clients, oauthSigningKey: 'oauth-signing-key-for-secret-length-0123456789', oauthTokenRateLimit: 0 };
    production = await startTestGateway('sqlite', { ...oauth, nodeEnv: 'production' });
    development = await startTestGateway('sqlite', oauth);
  });
  afterAll(async () => {
    await production.close();
    await development.close();
  });

  const token = (gw: TestGateway, id: string, secret: string) =>
    fetch(`${gw.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}`,
    });

  it('refuses a presented secret under 32 characters with invalid_client, even the configured one', async () => {
    const res = await token(production, 'short', SHORT);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_client');
    expect(body.error_description).toMatch(/at least 32 characters/);
    expect((await token(production, 'long', LONG)).status).toBe(200);
  });

  it('outside production, a short configured secret still works (development and tests)', async () => {
    expect((await token(development, 'short', SHORT)).status).toBe(200);
  });
});
