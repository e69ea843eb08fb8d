import { DATA_REGIONS } from '../../../src/mocks/platform/api/data-regions';
import { followAll, getWithHost, simulatorWithRecords } from './data-api-setup';
import type { RunningSimulator } from './simulator-harness';

let p: RunningSimulator;
let key: Record<string, string>;
const BASE = '/export/v1/records';

beforeAll(async () => {
  p = await simulatorWithRecords();
  key = { authorization: p.sim.credentials.dataApiKey };
});
afterAll(() => p.close());

const all = async () => (await followAll(p, `${BASE}/plugin-resources`, key)).items;

describe('Data API plugin-resources: recorded as the assistant surfaces and cites gateway files', () => {
  it('each record names the gateway file (detail.external_resource_id), the conversation, the user, whether it was cited, and when', async () => {
    const records = await all();
    expect(records.length).toBe(p.sim.context.pluginResources.length);
    expect(records.length).toBeGreaterThan(8);
    const files = p.sim.context.corpus().snapshot.files;
    for (const r of records) {
      expect(r).toMatchObject({
        id: expect.any(String),
        resource_id: expect.any(String),
        type: expect.stringMatching(/^RESOURCE_TYPE_(FILE|KNOWLEDGE)$/),
        conversation_id: expect.stringMatching(/^conv_/),
        user_id: expect.stringMatching(/^\d+$/),
        cited: expect.any(Boolean),
      });
      expect(files.has(r.detail.external_resource_id)).toBe(true);
      expect(r.detail.url).toBe(files.get(r.detail.external_resource_id)!.externalUrl);
      expect(new Date(r.created_time).toISOString()).toBe(r.created_time);
    }
    expect(records.some((r) => r.cited) && records.some((r) => !r.cited)).toBe(true);
  });
  it("cited records are exactly the answers' citations", async () => {
    const { messages, conversation_id } = await p.ask('ada@example.test', 'cluster rollback zone');
    const final = messages[messages.length - 1];
    const records = (await followAll(p, `${BASE}/plugin-resources?$filter=conversation_id eq '${conversation_id}'`, key)).items;
    const urls = records.filter((r) => r.cited).map((r) => r.detail.url);
    expect(urls.sort()).toEqual(final.citations.map((c: any) => c.url).sort());
  });
});

describe("Count plugin resources: $filter <field> eq '<value>' restricts which resources are counted; the body is the number, not paginated", () => {
  it('the bare number, with and without a filter', async () => {
    const records = await all();
    const total = await p.call(`${BASE}/plugin-resources/$count`, { headers: key });
    expect([total.status, total.headers.get('content-type')?.split(';')[0], total.text]).toEqual([200, 'text/plain', String(records.length)]);
    const user = records[0].user_id;
    const some = await p.call(`${BASE}/plugin-resources/$count?$filter=${encodeURIComponent(`user_id eq '${user}'`)}`, { headers: key });
    expect(some.text).toBe(String(records.filter((r) => r.user_id === user).length));
    const cited = await p.call(`${BASE}/plugin-resources/$count?$filter=${encodeURIComponent('cited eq true')}`, { headers: key });
    expect(cited.text).toBe(String(records.filter((r) => r.cited).length));
  });
});

describe('Count plugin resources: this is the only way to get a count; $count=true on the list endpoint is ignored', () => {
  it('no count in the list answer, the same items', async () => {
    const plain = await p.call(`${BASE}/plugin-resources`, { headers: key });
    const counted = await p.call(`${BASE}/plugin-resources?$count=true`, { headers: key });
    expect(counted.status).toBe(200);
    expect(Object.keys(counted.body).some((k) => k.includes('count'))).toBe(false);
    expect(counted.body.value).toEqual(plain.body.value);
  });
});

describe('{data_api_base_url} is the /export/v1/records base of one regional server: US (default), EU, CA, government cloud (US), Japan, UK, or one of two further US production servers', () => {
  it('eight regions', () => expect(DATA_REGIONS.map((r) => r.id)).toEqual(['us', 'eu', 'ca', 'gov', 'jp', 'uk', 'us-prod4', 'us-prod3']));
  afterEach(async () => void (await p.admin('/settings', { method: 'PATCH', body: { dataRegion: 'us' } })));
  it.each(DATA_REGIONS.map((r) => r.id))('a tenant in %s is served under /regions/<id>, its links on its own base', async (id) => {
    await p.admin('/settings', { method: 'PATCH', body: { dataRegion: id } });
    const res = await p.call(`/regions/${id}${BASE}/plugin-resources`, { headers: key });
    expect(res.status).toBe(200);
    expect(res.body['@odata.context']).toBe(`${p.origin}/regions/${id}${BASE}/$metadata#plugin-resources`);
    expect(res.body['@odata.nextLink']).toMatch(new RegExp(`^${p.origin}/regions/${id}${BASE}/plugin-resources\\?`));
    expect((await p.call(`/regions/${id}${BASE}/plugin-resources/$count`, { headers: key })).status).toBe(200);
  });
  it.each(DATA_REGIONS.map((r) => r.host))('by host: %s', async (host) => {
    const region = DATA_REGIONS.find((r) => r.host === host)?.id;
    await p.admin('/settings', { method: 'PATCH', body: { dataRegion: region } });
    const res = await getWithHost(p.origin, `${BASE}/plugin-resources?$top=1`, host, key);
    expect([res.status, res.body['@odata.context']]).toEqual([200, `http://${host}${BASE}/$metadata#plugin-resources`]);
  });
  it("a tenant's records live in its region: every other region's server answers 403 for its credentials, lists and counts alike", async () => {
    await p.admin('/settings', { method: 'PATCH', body: { dataRegion: 'eu' } });
    for (const other of DATA_REGIONS.filter((r) => r.id !== 'eu')) {
      const list = await p.call(`/regions/${other.id}${BASE}/plugin-resources`, { headers: key });
      expect([list.status, list.body]).toEqual([403, { code: 'FORBIDDEN', message: expect.any(String) }]);
      expect((await p.call(`/regions/${other.id}${BASE}/plugin-resources/$count`, { headers: key })).status).toBe(403);
      expect((await getWithHost(p.origin, `${BASE}/plugin-resources?$top=1`, other.host, key)).status).toBe(403);
    }
    expect((await p.call(`${BASE}/plugin-resources/$count`, { headers: key })).status).toBe(403);
    expect((await p.admin('/settings', { method: 'PATCH', body: { dataRegion: 'mars' } })).status).toBe(400);
  });
  it('an unknown region is a 404', async () => {
    expect((await p.call(`/regions/mars${BASE}/plugin-resources`, { headers: key })).body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  });
});

describe('Data API authentication: the Authorization header carries either an API key, or a bearer token in the form Bearer <token>', () => {
  it.each([
    ['the bare API key', async () => p.sim.credentials.dataApiKey],
    ['Bearer <API key>', async () => `Bearer ${p.sim.credentials.dataApiKey}`],
    ['Bearer <token from the OAuth client-credentials endpoint>', async () => `Bearer ${await p.token('data')}`],
  ])('%s is accepted', async (_name, header) => {
    expect((await p.call(`${BASE}/plugin-resources/$count`, { headers: { authorization: await header() } })).status).toBe(200);
  });
  it.each([
    ['no header', async () => undefined],
    ['a wrong key', async () => 'Bearer nope'],
    ['a Conversations API token', async () => `Bearer ${await p.token('conversations')}`],
    ['the message API key', async () => p.sim.credentials.messageApiKey],
  ])('%s is a 403 {code, message}', async (_name, header) => {
    const h = await header();
    const res = await p.call(`${BASE}/plugin-resources`, { headers: h ? { authorization: h } : {} });
    expect([res.status, res.body]).toEqual([403, { code: 'FORBIDDEN', message: expect.any(String) }]);
  });
  it('an expired token is refused (3600 s on the simulator clock)', async () => {
    const token = await p.token('data');
    await p.sim.advanceClock(3601_000);
    expect((await p.call(`${BASE}/plugin-resources/$count`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(403);
  });
});

describe('Data API errors: 400 bad request, 403 forbidden, 404 URL not found, 429 rate limit exceeded, 500 internal server error; body {code, message}', () => {
  const flat = (res: any, status: number) => expect([res.status, res.body]).toEqual([status, { code: expect.any(String), message: expect.any(String) }]);
  it('400: a bad $filter, $top, $skip, $orderby, $select, $skiptoken or an unknown option', async () => {
    for (const q of [
      '$filter=user_id eq',
      '$filter=nope eq 1',
      '$top=-1',
      '$skip=x',
      '$orderby=nope',
      '$select=detail/name',
      '$skiptoken=forged',
      '$expand=x',
      '$top=1&$top=2',
    ]) {
      flat(await p.call(`${BASE}/plugin-resources?${q}`, { headers: key }), 400);
    }
    flat(await p.call(`${BASE}/plugin-resources/$count?$filter=${encodeURIComponent("user_id eq '1")}`, { headers: key }), 400);
  });
  it("every error is application/json, $count's too (its 200 is text/plain)", async () => {
    const bad = await p.call(`${BASE}/plugin-resources/$count?$filter=${encodeURIComponent("user_id eq '1")}`, { headers: key });
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, expect.stringMatching(/^application\/json\b/)]);
    const refused = await p.call(`${BASE}/plugin-resources/$count`, { headers: { authorization: 'Bearer wrong' } });
    expect([refused.status, refused.headers.get('content-type')]).toEqual([403, expect.stringMatching(/^application\/json\b/)]);
    const ok = await p.call(`${BASE}/plugin-resources/$count`, { headers: key });
    expect([ok.status, ok.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/plain\b/)]);
  });
  it('404: an entity set or path that does not exist', async () => {
    flat(await p.call(`${BASE}/nothing`, { headers: key }), 404);
    flat(await p.call('/export/v9/records/plugin-resources', { headers: key }), 404);
  });
  it('429 with Retry-After', async () => {
    p.sim.setHostility({ rateLimitPerMinute: { data: 1 } });
    try {
      await p.call(`${BASE}/plugin-resources/$count`, { headers: key });
      const res = await p.call(`${BASE}/plugin-resources/$count`, { headers: key });
      flat(res, 429);
      expect(res.body.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      p.sim.setHostility({ rateLimitPerMinute: { data: 600 } });
    }
  });
  it('500 (an injected fault)', async () => {
    p.sim.setHostility({ faultRate: 1, faultStatuses: [500] });
    try {
      flat(await p.call(`${BASE}/plugin-resources`, { headers: key }), 500);
    } finally {
      p.sim.setHostility({ faultRate: 0 });
    }
  });
});

describe('Data API OData options: $filter, $select, $orderby, $top, $skip; @odata.nextLink followed verbatim', () => {
  it('select, order, top and skip together, across pages', async () => {
    const records = await all();
    const sorted = [...records].sort((a, b) =>
      a.user_id < b.user_id
        ? 1
        : a.user_id > b.user_id
          ? -1
          : a.created_time < b.created_time
            ? -1
            : a.created_time > b.created_time
              ? 1
              : a.id < b.id
                ? -1
                : 1,
    );
    const { items, pages } = await followAll(p, `${BASE}/plugin-resources?$select=id,user_id&$orderby=user_id desc&$top=7&$skip=2`, key);
    expect(pages).toBe(3);
    expect(items).toEqual(sorted.slice(2, 9).map((r) => ({ id: r.id, user_id: r.user_id })));
  });
  it('filters on nested detail fields and with functions', async () => {
    const records = await all();
    const file = records[0].detail.external_resource_id;
    const { items } = await followAll(
      p,
      `${BASE}/plugin-resources?$filter=${encodeURIComponent(`detail/external_resource_id eq '${file}' and (cited eq true or cited eq false) and not contains(detail/name,'zzz')`)}`,
      key,
    );
    expect(items.map((r) => r.id).sort()).toEqual(
      records
        .filter((r) => r.detail.external_resource_id === file)
        .map((r) => r.id)
        .sort(),
    );
  });
});
