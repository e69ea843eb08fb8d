import fc from 'fast-check';
import { followAll, simulatorWithRecords } from './data-api-setup';
import type { RunningSimulator } from './simulator-harness';

/** OData options of the Data API are open-ended input: answers agree with an in-memory oracle, and bad input is a 400, never a 500. */
let p: RunningSimulator;
let key: Record<string, string>;
let records: any[];
const BASE = '/export/v1/records/plugin-resources';

beforeAll(async () => {
  p = await simulatorWithRecords();
  key = { authorization: `Bearer ${p.sim.credentials.dataApiKey}` };
  records = (await followAll(p, BASE, key)).items;
});
afterAll(() => p.close());

const FIELDS = ['user_id', 'conversation_id', 'type', 'detail/external_resource_id', 'detail/name', 'plugin_call_id'];
const get = (r: any, path: string) => path.split('/').reduce((v, k) => v?.[k], r);
const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
const byDefault = (a: any, b: any) => (a.created_time < b.created_time ? -1 : a.created_time > b.created_time ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

describe("Data API $filter and $count: the count and the followed list agree with the records for any <field> eq '<value>'", () => {
  it('holds for values present and absent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FIELDS),
        fc.oneof(
          fc.constantFrom(...records.map((r) => r.user_id), ...records.map((r) => r.detail.external_resource_id), ...records.map((r) => r.type)),
          fc.string({ maxLength: 8 }),
        ),
        async (field, value) => {
          const filter = encodeURIComponent(`${field} eq ${q(value)}`);
          const expected = records.filter((r) => get(r, field) === value);
          const count = await p.call(`${BASE}/$count?$filter=${filter}`, { headers: key });
          expect([count.status, count.text]).toEqual([200, String(expected.length)]);
          const listed = await followAll(p, `${BASE}?$filter=${filter}`, key);
          expect(listed.items.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('Data API $top and $skip: the followed list is the window of the ordered records', () => {
  it('for any $top, $skip and order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 }),
        fc.constantFrom('', 'user_id desc', 'detail/name asc', 'cited desc,id'),
        async (top, skip, orderby) => {
          const params = `$top=${top}&$skip=${skip}${orderby ? `&$orderby=${encodeURIComponent(orderby)}` : ''}`;
          const { items } = await followAll(p, `${BASE}?${params}`, key);
          let sorted = [...records].sort(byDefault);
          if (orderby === 'user_id desc') sorted = [...records].sort((a, b) => (a.user_id < b.user_id ? 1 : a.user_id > b.user_id ? -1 : byDefault(a, b)));
          if (orderby === 'detail/name asc')
            sorted = [...records].sort((a, b) => (a.detail.name < b.detail.name ? -1 : a.detail.name > b.detail.name ? 1 : byDefault(a, b)));
          if (orderby === 'cited desc,id') sorted = [...records].sort((a, b) => Number(b.cited) - Number(a.cited) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          expect(items.map((r) => r.id)).toEqual(sorted.slice(skip, skip + top).map((r) => r.id));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('Data API errors: bad OData input is a 400 {code, message}, never a 500', () => {
  it('any $filter, $orderby, $select, $top, $skip text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('$filter', '$orderby', '$select', '$top', '$skip', '$skiptoken'), fc.string({ maxLength: 30 }), async (option, text) => {
        const res = await p.call(`${BASE}?${option}=${encodeURIComponent(text)}`, { headers: key });
        expect([200, 400]).toContain(res.status);
        if (res.status === 400) expect(res.body).toEqual({ code: 'BAD_REQUEST', message: expect.any(String) });
        const count = await p.call(`${BASE}/$count?$filter=${encodeURIComponent(text)}`, { headers: key });
        expect([200, 400]).toContain(count.status);
      }),
      { numRuns: 150 },
    );
  });
});
