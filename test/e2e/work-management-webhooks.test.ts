import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startHarnessGateway, type HarnessGateway } from '@content-gateway/kit/src/scenarios/harness-gateway';
import { startHarnessMock, type HarnessMock } from '@content-gateway/kit/src/scenarios/harness-mock';
import { DEFAULT_RETRY_POLICY } from '../../src/outbound-http/retry-policy';

/**
 * The gateway receives the work-management service's webhooks the way a deployment would: the
 * real mock, the real gateway on loopback, the webhook registered at the mock with the handshake
 * answered by the gateway; a change in the mock is served after the incremental sync its delivery
 * asked for, with no sync started by the test.
 */
const logger = pino({ level: 'silent' });
let mock: HarnessMock;
let gw: HarnessGateway;
let work: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-webhooks-'));
  mock = await startHarnessMock({
    seed: '3',
    tasks: 40,
    logger,
    print: () => undefined,
    retryPolicy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 5, maxDelayMs: 50 },
  });
  gw = await startHarnessGateway(mock, { work, logger, webhooks: true });
  await gw.sync('full');
});
afterAll(async () => {
  await gw?.close();
  await mock?.close?.();
  fs.rmSync(work, { recursive: true, force: true });
});

async function servedTask(): Promise<string> {
  const visible = await mock.client.visibility('task');
  for (const gid of visible.keys()) if (await gw.readFile(`task:${gid}`)) return gid;
  throw new Error('no task is served');
}

describe('webhooks from the work-management service', () => {
  it('a change in the mock is served after the incremental sync its webhook delivery asked for', async () => {
    const gid = await servedTask();
    const name = `Renamed through a webhook ${crypto.randomBytes(4).toString('hex')}`;
    await mock.client.request('PUT', `/api/1.0/tasks/${gid}`, { data: { name } });
    // No sync is started here: only the delivery can bring the new name.
    for (;;) {
      const file = await gw.readFile(`task:${gid}`);
      if (file?.body.includes(name)) break;
      await gw.webhookSyncsIdle();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const hooks = await mock.client.request<{ data: Array<{ target: string; last_success_at: string | null }> }>(
      'GET',
      `/api/1.0/webhooks?workspace=${mock.workspace}`,
    );
    expect(hooks.data).toEqual([expect.objectContaining({ target: `${gw.url}/webhooks/wm?resource=${mock.workspace}`, last_success_at: expect.any(String) })]);
  });

  it('refuses a delivery with a bad or missing signature (401), and a handshake nobody expects', async () => {
    const body = JSON.stringify({ events: [] });
    const forged = crypto.createHmac('sha256', 'not-the-secret').update(body).digest('hex');
    const bad = await fetch(`${gw.url}/webhooks/wm`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Hook-Signature': forged }, body });
    expect(bad.status).toBe(401);
    const none = await fetch(`${gw.url}/webhooks/wm`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(none.status).toBe(401);
    const handshake = await fetch(`${gw.url}/webhooks/wm`, { method: 'POST', headers: { 'X-Hook-Secret': crypto.randomBytes(32).toString('hex') } });
    expect(handshake.status).toBe(401);
    expect(handshake.headers.get('x-hook-secret')).toBeNull();
  });
});
