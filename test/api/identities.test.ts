import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { at, group, user } from '../helpers/staging-fixtures';

async function crawlValues(gw: TestGateway, first: string): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let next: string | undefined = first;
  while (next) {
    const res = await gw.get(next.replace(gw.url, ''), AUTH);
    expect(res.status).toBe(200);
    out.push(...res.body.value);
    next = res.body['@odata.nextLink'];
  }
  return out;
}

describe.each(databaseKinds)('identities on %s', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(kind);
    await gw.writer.putUsers([
      user('test:ana', { metadata: JSON.stringify({ title: 'Engineer' }), modified_at: at(3) }),
      user('test:bo', { state: 'Inactive', modified_at: at(1) }),
      user('test:chen', { full_name: null, modified_at: at(2) }),
    ]);
    // all ⊃ eng ⊃ platform ⊃ ana; members are direct only.
    await gw.writer.putGroups([
      {
        group: group('test:all'),
        members: [
          { type: 'GROUP', id: 'test:eng' },
          { type: 'USER', id: 'test:bo' },
        ],
      },
      {
        group: group('test:eng'),
        members: [{ type: 'GROUP', id: 'test:platform' }, ...Array.from({ length: 6 }, (_, i) => ({ type: 'USER' as const, id: `test:u${i}` }))],
      },
      { group: group('test:platform', { name: null }), members: [{ type: 'USER', id: 'test:ana' }] },
      { group: group('test:empty'), members: [] },
    ]);
  });
  afterAll(() => gw.close());

  it('GET /v1/users lists users with id, primary_email_addr, full_name and Active/Inactive state', async () => {
    const users = await crawlValues(gw, '/v1/users?$top=2');
    expect(users).toEqual([
      {
        id: 'test:ana',
        primary_email_addr: 'testana@example.com',
        full_name: 'User test:ana',
        state: 'Active',
        last_modified_datetime: at(3),
        metadata: { title: 'Engineer' },
      },
      { id: 'test:bo', primary_email_addr: 'testbo@example.com', full_name: 'User test:bo', state: 'Inactive', last_modified_datetime: at(1) },
      { id: 'test:chen', primary_email_addr: 'testchen@example.com', state: 'Active', last_modified_datetime: at(2) },
    ]);
  });

  it('GET /v1/users filters by state and orders by last_modified_datetime', async () => {
    const inactive = await crawlValues(gw, `/v1/users?$filter=${encodeURIComponent("state eq 'Inactive'")}`);
    expect(inactive.map((u) => u.id)).toEqual(['test:bo']);
    const byTime = await crawlValues(gw, '/v1/users?$orderby=last_modified_datetime%20desc&$top=1');
    expect(byTime.map((u) => u.id)).toEqual(['test:ana', 'test:chen', 'test:bo']);
  });

  it('GET /v1/groups lists every group', async () => {
    const groups = await crawlValues(gw, '/v1/groups?$top=3');
    expect(groups.map((g) => g.id)).toEqual(['test:all', 'test:empty', 'test:eng', 'test:platform']);
    expect(groups[0]).toEqual({ id: 'test:all', name: 'Group test:all', created_datetime: at(0), last_modified_datetime: at(0) });
  });

  it('GET /v1/groups/{id}/members returns direct members only, sub-groups as GROUP entries, paged', async () => {
    const all = await crawlValues(gw, '/v1/groups/test%3Aall/members');
    expect(all).toEqual([
      { type: 'GROUP', id: 'test:eng', name: 'Group test:eng' },
      { type: 'USER', id: 'test:bo', name: 'User test:bo' },
    ]);
    const eng = await crawlValues(gw, '/v1/groups/test%3Aeng/members?$top=4');
    expect(eng.map((m) => `${m.type} ${m.id}`)).toEqual(['GROUP test:platform', ...Array.from({ length: 6 }, (_, i) => `USER test:u${i}`)]);
    // Members that are not (yet) staged as users still appear, without a display name.
    expect(eng[1]).toEqual({ type: 'USER', id: 'test:u0' });
    expect(await crawlValues(gw, '/v1/groups/test%3Aempty/members')).toEqual([]);
  });

  it('GET /v1/groups/{id}/members answers 404 for an unknown group and refuses a token from another group', async () => {
    const missing = await gw.get('/v1/groups/test%3Anope/members', AUTH);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    const first = await gw.get('/v1/groups/test%3Aeng/members?$top=2', AUTH);
    const token = new URL(first.body['@odata.nextLink']).searchParams.get('$skiptoken');
    const foreign = await gw.get(`/v1/groups/test%3Aall/members?$skiptoken=${token}`, AUTH);
    expect(foreign.status).toBe(400);
  });
});
