import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hashClientSecret } from '../../src/http/security/client-secrets';
import { runCli, startCli, type CliProcess } from '../e2e/cli-process';
import { freePort } from '../helpers/free-port';

jest.setTimeout(60_000);

/**
 * The console's admin OAuth clients, through the front door: a started `serve` with
 * `CONSOLE_ADMIN_CLIENTS` and no admin key. An admin client's token (scope `console:admin`) opens
 * the console and nothing under `/v1`; a crawler's token opens `/v1` and not the console; neither
 * may have the other's scope.
 */
const ADMIN = { id: 'ops-dashboard', secret: 'ops-dashboard-secret-0123456789abcdef' };
const CRAWLER = { id: 'platform', secret: 'platform-crawler-secret-0123456789abcdef' };

describe('console admin OAuth clients (CONSOLE_ADMIN_CLIENTS)', () => {
  let dir: string;
  let serve: CliProcess;
  let url: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-console-clients-'));
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const clients = [`${ADMIN.id}:${await hashClientSecret(ADMIN.secret)}`, `${CRAWLER.id}:${await hashClientSecret(CRAWLER.secret)}`];
    env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: 'console-clients-crawl-key-0123456789',
      OAUTH_CLIENTS: clients.join(','),
      OAUTH_SIGNING_KEY: 'console-clients-signing-key-0123456789abcdef',
      CONSOLE_ENABLED: 'true',
      CONSOLE_ADMIN_CLIENTS: ADMIN.id,
    };
    serve = startCli(['serve'], env);
    await serve.waitForLine((line) => line.includes('listening on http://localhost:'), 'serve listening');
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const token = async (client: { id: string; secret: string }, scope?: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret, ...(scope ? { scope } : {}) });
    const res = await fetch(`${url}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const statusOf = async (at: string, bearer: string) => (await fetch(`${url}${at}`, { headers: { authorization: `Bearer ${bearer}` } })).status;

  it("an admin client's token has the console:admin scope, opens the console's pages and JSON, and nothing under /v1", async () => {
    const issued = await token(ADMIN);
    expect([issued.status, issued.body.scope]).toEqual([200, 'console:admin']);
    const admin = issued.body.access_token as string;
    expect(await statusOf('/console/api/sources', admin)).toBe(200);
    expect(await statusOf('/console/sources', admin)).toBe(200);
    expect(await statusOf('/v1/files', admin)).toBe(401);
    expect(await statusOf('/v1/users', admin)).toBe(401);
    expect((await token(ADMIN, 'console:admin')).status).toBe(200);
  });

  it("a crawler's token opens /v1 and not the console; the crawl key does not open it either", async () => {
    const issued = await token(CRAWLER);
    expect([issued.status, issued.body.scope]).toEqual([200, undefined]);
    const crawler = issued.body.access_token as string;
    expect(await statusOf('/v1/files', crawler)).toBe(200);
    expect(await statusOf('/console/api/sources', crawler)).toBe(401);
    expect(await statusOf('/console/api/sources', env.GATEWAY_API_KEY ?? '')).toBe(401);
  });

  it('neither client may have the other scope (invalid_scope)', async () => {
    expect(await token(CRAWLER, 'console:admin')).toEqual({ status: 400, body: expect.objectContaining({ error: 'invalid_scope' }) });
    expect(await token(ADMIN, 'files:read')).toEqual({ status: 400, body: expect.objectContaining({ error: 'invalid_scope' }) });
  });

  it('serve refuses an admin client that is not an OAuth client', async () => {
    const refused = await runCli(['serve'], { ...env, PORT: '0', CONSOLE_ADMIN_CLIENTS: 'nobody' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("CONSOLE_ADMIN_CLIENTS: 'nobody' not among OAUTH_CLIENTS's client ids");
  });
});
