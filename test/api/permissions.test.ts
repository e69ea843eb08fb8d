import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { htmlFile } from '../helpers/staging-fixtures';

describe.each(databaseKinds)('GET /v1/files/{id}/permissions on %s', (kind) => {
  let gw: TestGateway;
  const many = Array.from({ length: 7 }, (_, i) => ({ type: 'USER' as const, id: `test:user-${i}` }));

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    await gw.writer.putFiles([
      { file: htmlFile('test:public'), permissions: [{ type: 'GROUP', id: '*' }] },
      {
        file: htmlFile('test:team', { permissions_modified_at: '2026-03-04T05:06:07.000Z' }),
        permissions: [...many, { type: 'GROUP', id: 'test:team' }, { type: 'GROUP', id: 'test:user-0' }],
      },
      { file: htmlFile('test:nobody'), permissions: [] },
    ]);
  });
  afterAll(() => gw.close());

  it('returns the wildcard exactly as GROUP * VIEW, inside value.permissions', async () => {
    const res = await gw.get('/v1/files/test%3Apublic/permissions', AUTH);
    expect(res.body['@odata.context']).toBe(`${gw.url}/v1/$metadata#Permissions`);
    expect(res.body.value.permissions).toEqual([{ type: 'GROUP', id: '*', action: 'VIEW' }]);
  });

  it('pages a long list by (type, id), with USER and GROUP entries of the same id kept apart', async () => {
    const seen: unknown[] = [];
    let next: string | undefined = '/v1/files/test%3Ateam/permissions?$top=3';
    while (next) {
      const res = await gw.get(next.replace(gw.url, ''), AUTH);
      expect(res.body.value.last_modified_datetime).toBe('2026-03-04T05:06:07.000Z');
      seen.push(...res.body.value.permissions);
      next = res.body['@odata.nextLink'];
    }
    expect(seen).toEqual([
      { type: 'GROUP', id: 'test:team', action: 'VIEW' },
      { type: 'GROUP', id: 'test:user-0', action: 'VIEW' },
      ...many.map((p) => ({ ...p, action: 'VIEW' })),
    ]);
  });

  it('filters by type', async () => {
    const res = await gw.get(`/v1/files/test%3Ateam/permissions?$filter=${encodeURIComponent("type eq 'GROUP'")}`, AUTH);
    expect(res.body.value.permissions.map((p: { id: string }) => p.id)).toEqual(['test:team', 'test:user-0']);
  });

  it('refuses a token issued for another file', async () => {
    const first = await gw.get('/v1/files/test%3Ateam/permissions?$top=2', AUTH);
    const token = new URL(first.body['@odata.nextLink']).searchParams.get('$skiptoken');
    const res = await gw.get(`/v1/files/test%3Apublic/permissions?$skiptoken=${token}`, AUTH);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/another collection/);
  });

  it('returns an empty list for a file nobody may see, and 404 for an unknown file', async () => {
    expect((await gw.get('/v1/files/test%3Anobody/permissions', AUTH)).body.value.permissions).toEqual([]);
    const res = await gw.get('/v1/files/test%3Anope/permissions', AUTH);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
