import { FaultInjector, applyHostility, DEFAULT_HOSTILITY } from '../../../src/mocks/platform/hostility';
import { startSimulator, type RunningSimulator } from './simulator-harness';

/** Rate limits and fault injection, as the work-management mock has them. */
let p: RunningSimulator;
beforeAll(async () => {
  p = await startSimulator({ hostility: { rateLimitPerMinute: { message: 2 } } });
});
afterAll(() => p.close());

const send = () =>
  p.call('/rest/v1/messages/send', { body: { message: 'x', recipients: ['a@b.c'] }, headers: { authorization: p.sim.credentials.messageApiKey } });

describe('Rate limits: configurable per API family, 429 with Retry-After counted on the simulator clock', () => {
  it('the message API limit, then the window rolls', async () => {
    expect([(await send()).status, (await send()).status]).toEqual([200, 200]);
    const refused = await send();
    expect([refused.status, refused.body.code]).toEqual([429, 'RATE_LIMIT_EXCEEDED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    await p.sim.advanceClock(60_000);
    expect((await send()).status).toBe(200);
  });
  it('families are counted apart, and PATCH /_admin/hostility changes limits at run time', async () => {
    expect((await p.call('/export/v1/records/plugin-resources/$count', { headers: { authorization: p.sim.credentials.dataApiKey } })).status).toBe(200);
    const patched = await p.admin('/hostility', { method: 'PATCH', body: { rateLimitPerMinute: 0 } });
    expect(patched.body.rateLimitPerMinute).toEqual({ conversations: 0, data: 0, message: 0, auth: 0 });
    for (let i = 0; i < 5; i++) expect((await send()).status).toBe(200);
  });
});

describe('Fault injection: a share of requests answered 5xx, slow responses; seeded and reproducible', () => {
  it("only the documented server error is injected: 500, as each family's internal error; 503 or 504 is refused", async () => {
    p.sim.setHostility({ faultRate: 1 });
    const data = await send();
    expect([data.status, data.body.code]).toEqual([500, 'INTERNAL_SERVER_ERROR']);
    const conv = await p.call('/rest/v1/conversations/conv_x/messages', { headers: await p.conversationHeaders().catch(() => ({})) });
    expect([conv.status, conv.body.error.code]).toEqual([500, 'INTERNAL_ERROR']);
    p.sim.setHostility({ faultRate: 0 });
    for (const faultStatuses of [[503], [500, 504]]) {
      const refused = await p.admin('/hostility', { method: 'PATCH', body: { faultRate: 0.5, faultStatuses } });
      expect([refused.status, refused.body.code]).toEqual([400, 'BAD_REQUEST']);
    }
    expect((await p.admin('/state')).body.hostility).toMatchObject({ faultRate: 0, faultStatuses: [500] });
  });
  it('latency is added', async () => {
    p.sim.setHostility({ latencyMs: { min: 120, max: 120 } });
    const started = Date.now();
    await send();
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    p.sim.setHostility({ latencyMs: { min: 0, max: 0 } });
  });
  it('the same seed draws the same faults', () => {
    const settings = applyHostility(DEFAULT_HOSTILITY, { faultRate: 0.3, seed: 's1' });
    const draws = () => {
      const f = new FaultInjector(() => settings);
      return Array.from({ length: 50 }, () => f.fault() ?? 0);
    };
    const a = draws();
    expect(draws()).toEqual(a);
    expect(a.filter((x) => x > 0).length).toBeGreaterThan(5);
  });
});

describe('Bad input gets the documented error envelope, never an unhandled 500', () => {
  it('malformed JSON on every POST family and the admin paths', async () => {
    const headers = await p.conversationHeaders('ada@example.test');
    expect((await p.call('/rest/v1/conversations', { raw: '{', headers })).body.error.code).toBe('INVALID_REQUEST');
    expect((await p.call('/oauth/v1/token', { raw: '{' })).status).toBe(400);
    expect((await p.admin('/ask', { raw: '{' })).status).toBe(400);
    expect((await p.admin('/ask', { body: { email: 'ada@example.test' } })).status).toBe(400);
    expect((await p.admin('/ask', { body: { email: 'ada@example.test', question: 'x', conversation_id: 'conv_nope' } })).status).toBe(404);
    expect((await p.call('/_admin/state')).status).toBe(401);
    expect((await p.call('/nowhere')).status).toBe(404);
  });
  it('the token endpoint: wrong secret 401, wrong grant 400, form bodies accepted', async () => {
    const c = p.sim.credentials.clients.data;
    expect((await p.call('/oauth/v1/token', { body: { client_id: c.clientId, client_secret: 'no', grant_type: 'client_credentials' } })).body).toEqual({
      error: 'invalid_client',
      error_description: expect.any(String),
    });
    expect((await p.call('/oauth/v1/token', { body: { client_id: c.clientId, client_secret: c.clientSecret, grant_type: 'password' } })).status).toBe(400);
    const form = await p.call('/oauth/v1/token', {
      raw: new URLSearchParams({ client_id: c.clientId, client_secret: c.clientSecret, grant_type: 'client_credentials' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([form.status, form.body.token_type, form.body.expires_in]).toEqual([200, 'Bearer', 3600]);
  });
});
