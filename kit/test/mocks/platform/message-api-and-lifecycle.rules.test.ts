import fs from 'node:fs';
import path from 'node:path';
import { EXPERIMENTAL_NOTICE_DAYS, LIFECYCLE_TABLE } from '../../../src/mocks/platform/api/lifecycle-table';
import { startSimulator, type RunningSimulator } from './simulator-harness';

let p: RunningSimulator;
let key: Record<string, string>;
const BODY = { message: '<p>The <b>cafeteria</b> is closed today.</p>', recipients: ['ada@example.test', 'ben@example.test'] };

beforeAll(async () => {
  p = await startSimulator();
  key = { authorization: `Bearer ${p.sim.credentials.messageApiKey}` };
});
afterAll(() => p.close());

describe('POST /rest/v1/messages/send is legacy: keep using; no enhancements (the message API key is used)', () => {
  it('sends with the key, bare or Bearer, and says it is legacy', async () => {
    for (const authorization of [key.authorization!, p.sim.credentials.messageApiKey]) {
      const res = await p.call('/rest/v1/messages/send', { body: BODY, headers: { authorization } });
      expect([res.status, res.body, res.headers.get('x-api-lifecycle'), res.headers.get('deprecation')]).toEqual([
        200,
        { data: { status: 'RECEIVED' } },
        'legacy',
        null,
      ]);
    }
    expect((await p.admin('/messages')).body.messages.at(-1)).toMatchObject({ path: '/rest/v1/messages/send', recipients: BODY.recipients });
  });
  it('a missing or wrong key is 401; a bad body 400; more than 500 recipients 400 — {code, message}', async () => {
    const flat = { code: expect.any(String), message: expect.any(String) };
    expect(await p.call('/rest/v1/messages/send', { body: BODY }).then((r) => [r.status, r.body])).toEqual([401, flat]);
    expect(
      await p.call('/rest/v1/messages/send', { body: BODY, headers: { authorization: `Bearer ${p.sim.credentials.dataApiKey}` } }).then((r) => r.status),
    ).toBe(401);
    for (const body of [
      {},
      { message: 'x' },
      { message: 'x', recipients: [] },
      { message: 'x', recipients: ['not-an-email'] },
      { message: '', recipients: ['a@b.c'] },
    ]) {
      expect(await p.call('/rest/v1/messages/send', { body, headers: key }).then((r) => [r.status, r.body])).toEqual([400, flat]);
    }
    expect((await p.call('/rest/v1/messages/send', { raw: '{oops', headers: key })).status).toBe(400);
    const many = Array.from({ length: 501 }, (_, i) => `u${i}@example.test`);
    expect((await p.call('/rest/v1/messages/send', { body: { message: 'x', recipients: many }, headers: key })).status).toBe(400);
  });
});

describe('POST /rest/v1beta1/messages/send is deprecated since 2023-01-31: switch to POST /rest/v1/messages/send; the current message API key still works', () => {
  it('the same key works; the answer says it is deprecated, since when and what to use', async () => {
    const res = await p.call('/rest/v1beta1/messages/send', { body: BODY, headers: key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'RECEIVED' }, warning: expect.stringMatching(/deprecated since 2023-01-31.*\/rest\/v1\/messages\/send/) });
    expect(res.headers.get('x-api-lifecycle')).toBe('deprecated');
    expect(res.headers.get('deprecation')).toBe(`@${Date.UTC(2023, 0, 31) / 1000}`);
    expect(res.headers.get('link')).toBe('</rest/v1/messages/send>; rel="successor-version"');
  });
  it('a setting removes it: 410 {code, message}, the stable path still works', async () => {
    expect((await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'message.send@v1beta1': 'removed' } } })).status).toBe(200);
    try {
      const res = await p.call('/rest/v1beta1/messages/send', { body: BODY, headers: key });
      expect([res.status, res.body]).toEqual([410, { code: 'GONE', message: expect.stringContaining('/rest/v1/messages/send') }]);
      expect((await p.call('/rest/v1/messages/send', { body: BODY, headers: key })).status).toBe(200);
    } finally {
      await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'message.send@v1beta1': 'deprecated' } } });
    }
  });
});

describe("Lifecycle stages: stable, legacy, deprecated, experimental — one table drives every endpoint's behaviour and headers", () => {
  it('every row is served with its stage in X-Api-Lifecycle (stable examples: the data API)', async () => {
    expect(new Set(LIFECYCLE_TABLE.map((r) => r.stage))).toEqual(new Set(['stable', 'legacy', 'deprecated', 'experimental']));
    expect(LIFECYCLE_TABLE.filter((r) => r.family === 'data').every((r) => r.stage === 'stable')).toBe(true);
    const listed = (await p.admin('/lifecycle')).body.endpoints;
    expect(listed.map((r: any) => r.id)).toEqual(LIFECYCLE_TABLE.map((r) => r.id));
    const res = await p.call('/export/v1/records/plugin-resources/$count', { headers: { authorization: p.sim.credentials.dataApiKey } });
    expect(res.headers.get('x-api-lifecycle')).toBe('stable');
  });
  it("a stage changed in the settings changes behaviour and headers: deprecated adds Deprecation, removed answers 410 in the family's envelope", async () => {
    const conv = (await p.ask('dee@example.test', 'welcome')).conversation_id;
    const headers = await p.conversationHeaders('dee@example.test');
    await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'conversations.list-messages@rest/v1': 'deprecated' } } });
    const deprecated = await p.call(`/rest/v1/conversations/${conv}/messages`, { headers });
    expect([deprecated.status, deprecated.headers.get('x-api-lifecycle'), deprecated.headers.get('deprecation')]).toEqual([200, 'deprecated', 'true']);
    await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'conversations.list-messages@rest/v1': 'removed' } } });
    const removed = await p.call(`/rest/v1/conversations/${conv}/messages`, { headers });
    expect([removed.status, removed.body.error.code]).toEqual([410, 'NOT_FOUND']);
    await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'conversations.list-messages@rest/v1': 'stable' } } });
    expect((await p.call(`/rest/v1/conversations/${conv}/messages`, { headers })).headers.get('x-api-lifecycle')).toBe('stable');
  });
});

describe('Experimental: beta endpoints for pilot customers, denoted by the version path segment (/rest/v2beta3/* is the third beta of version 2); may change with at least 14 days notice', () => {
  it('a piloted beta is served with the notice period; a beta the tenant does not pilot, or a segment that is no beta, is 404', async () => {
    const conv = (await p.ask('dee@example.test', 'holidays')).conversation_id;
    const headers = await p.conversationHeaders('dee@example.test');
    const beta = await p.call(`/rest/v2beta1/conversations/${conv}/messages`, { headers });
    expect([beta.status, beta.headers.get('x-api-lifecycle'), beta.headers.get('x-api-change-notice-days')]).toEqual([
      200,
      'experimental',
      String(EXPERIMENTAL_NOTICE_DAYS),
    ]);
    expect(EXPERIMENTAL_NOTICE_DAYS).toBeGreaterThanOrEqual(14);
    for (const version of ['v2beta3', 'v9', 'v2gamma1']) {
      const res = await p.call(`/rest/${version}/conversations/${conv}/messages`, { headers });
      expect([version, res.status, res.body.error.code]).toEqual([version, 404, 'NOT_FOUND']);
    }
    await p.admin('/settings', { method: 'PATCH', body: { pilotVersions: ['v2beta1', 'v2beta3'] } });
    expect((await p.call(`/rest/v2beta3/conversations/${conv}/messages`, { headers })).status).toBe(200);
  });
});

describe('kit/src/mocks/platform/README.md lists every endpoint with its lifecycle stage', () => {
  it('each row of the table appears with its stage', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../../src/mocks/platform/README.md'), 'utf8');
    for (const row of LIFECYCLE_TABLE) {
      const line = readme.split('\n').find((l) => l.includes(`\`${row.id}\``));
      expect([row.id, line?.includes(row.stage), line?.includes(row.path.replace(/:(\w+)/g, '{$1}'))]).toEqual([row.id, true, true]);
    }
  });
});

describe('Deprecated: scheduled for removal; Experimental: may change or be deprecated with at least 14 days notice (dates on the simulator clock)', () => {
  const DAY = 86_400_000;
  // A simulator of its own on a clock that only moves when told: dates to the millisecond.
  let p: RunningSimulator;
  let key: Record<string, string>;
  beforeAll(async () => {
    p = await startSimulator({ now: () => Date.UTC(2025, 5, 1) });
    key = { authorization: `Bearer ${p.sim.credentials.messageApiKey}` };
  });
  afterAll(() => p.close());
  const at = (days: number) => new Date(p.sim.clock.now() + days * DAY).toISOString();
  const schedule = (row: string, stage: string, days: number) => p.admin('/lifecycle/schedule', { method: 'POST', body: { row, stage, at: at(days) } });

  it('a deprecated endpoint announced for removal answers with Sunset and the notice until its date, then 410 Gone', async () => {
    const announced = await schedule('message.send@v1beta1', 'removed', 30);
    expect(announced.status).toBe(201);
    const before = await p.call('/rest/v1beta1/messages/send', { body: BODY, headers: key });
    expect(before.status).toBe(200);
    expect(before.headers.get('sunset')).toBe(new Date(announced.body.at).toUTCString());
    expect(before.headers.get('x-api-change-notice')).toBe(`removed; date=${announced.body.at}`);
    await p.sim.advanceClock(29 * DAY);
    expect((await p.call('/rest/v1beta1/messages/send', { body: BODY, headers: key })).status).toBe(200);
    await p.sim.advanceClock(DAY);
    const after = await p.call('/rest/v1beta1/messages/send', { body: BODY, headers: key });
    expect([after.status, after.body.code, after.headers.get('sunset')]).toEqual([410, 'GONE', null]);
    expect((await p.admin('/lifecycle')).body.endpoints.find((e: { id: string }) => e.id === 'message.send@v1beta1').stage).toBe('removed');
  });

  it(`an experimental change announced with less than ${EXPERIMENTAL_NOTICE_DAYS} days notice is refused; with it, it applies on its date`, async () => {
    const row = 'conversations.list-messages@rest/vNbetaM';
    expect((await schedule(row, 'deprecated', EXPERIMENTAL_NOTICE_DAYS - 1)).status).toBe(400);
    const announced = await schedule(row, 'deprecated', EXPERIMENTAL_NOTICE_DAYS);
    expect(announced.status).toBe(201);
    const conv = (await p.ask('dee@example.test', 'holidays')).conversation_id;
    const headers = await p.conversationHeaders('dee@example.test');
    const beta = await p.call(`/rest/v2beta1/conversations/${conv}/messages`, { headers });
    expect([beta.status, beta.headers.get('x-api-lifecycle'), beta.headers.get('x-api-change-notice')]).toEqual([
      200,
      'experimental',
      `deprecated; date=${announced.body.at}`,
    ]);
    await p.sim.advanceClock(EXPERIMENTAL_NOTICE_DAYS * DAY);
    const later = await p.call(`/rest/v2beta1/conversations/${conv}/messages`, { headers: await p.conversationHeaders('dee@example.test') });
    expect([later.status, later.headers.get('x-api-lifecycle'), later.headers.get('x-api-change-notice')]).toEqual([200, 'deprecated', null]);
  });

  it('a change for an unknown row, an unknown stage or a date not after the clock is refused', async () => {
    expect((await schedule('nope', 'removed', 30)).status).toBe(400);
    expect((await schedule('message.send@v1beta1', 'gone', 30)).status).toBe(400);
    expect((await schedule('message.send@v1beta1', 'removed', 0)).status).toBe(400);
  });
});
