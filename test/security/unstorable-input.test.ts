import fc from 'fast-check';
import { isStorableText } from '../../src/lib/is-storable-text';
import { databaseKinds } from '../helpers/test-databases';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { group, htmlFile, user } from '../helpers/staging-fixtures';

/**
 * Text one of the two databases cannot store (Postgres refuses NUL in `text`; a lone surrogate has
 * no UTF-8 form) never reaches a query: it is refused with 400 on both, instead of a 500 on
 * Postgres and an empty answer on SQLite.
 */
describe('isStorableText', () => {
  it('is true exactly for strings without NUL that survive a UTF-8 round trip', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(
            fc.constant('\u0000'),
            fc.constantFrom('\ud800', '\udfff', '\ud83d'),
            fc.constantFrom('a', '%', '/'),
            fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
          ),
        }),
        (text) => {
          const expected = !text.includes('\u0000') && Buffer.from(text, 'utf8').toString('utf8') === text;
          expect(isStorableText(text)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
    expect(isStorableText('demo:a/b é 😀 %00')).toBe(true);
  });
});

describe.each(databaseKinds)('unstorable text in a request (%s)', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(kind);
    await gw.writer.putFiles([{ file: htmlFile('test:a'), permissions: [{ type: 'USER', id: 'test:u' }] }]);
    await gw.writer.putUsers([user('test:u')]);
    await gw.writer.putGroups([{ group: group('test:g'), members: [{ type: 'USER', id: 'test:u' }] }]);
  });
  afterAll(() => gw.close());

  const expectRefused = async (pathAndQuery: string): Promise<void> => {
    const res = await gw.get(pathAndQuery, AUTH);
    expect({ pathAndQuery, status: res.status, code: res.body?.error?.code }).toEqual({ pathAndQuery, status: 400, code: 'INPUT_VALIDATION_FAILED' });
    expect(res.body.error.message).toMatch(/NUL|surrogate/);
  };

  it.each([
    '/v1/files/a%00b',
    '/v1/files/test%3Aa%00',
    '/v1/files/%00',
    '/v1/files/a%00b/download',
    '/v1/files/a%00b/permissions',
    '/v1/groups/a%00b/members',
    // Raw ids: the reading the path resolves to holds the NUL.
    '/v1/files/test:a/%00/download',
    '/v1/files/%00/x/permissions',
    '/v1/groups/test:g/%00/members',
  ])('refuses the id of %s', (path) => expectRefused(path));

  it.each([
    "/v1/files?$filter=id eq 'a%00b'",
    "/v1/users?$filter=id eq 'a%00b'",
    "/v1/groups?$filter=id eq '%00'",
    "/v1/groups/test%3Ag/members?$filter=id eq 'test:u%00'",
    "/v1/files/test%3Aa/permissions?$filter=id eq '%00test:u'",
    "/v1/files?$filter=status eq 'active' and id eq 'x%00'",
  ])('refuses the $filter literal of %s', (pathAndQuery) => expectRefused(pathAndQuery.replace(/ /g, '%20')));

  it('refuses any id or $filter literal with a NUL, wherever it sits, and serves the same text without it', async () => {
    const withNul = fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([a, b]) => `${a}\u0000${b}`);
    const routes = [
      (id: string) => `/v1/files/${encodeURIComponent(id)}`,
      (id: string) => `/v1/files/${encodeURIComponent(id)}/download`,
      (id: string) => `/v1/files/${encodeURIComponent(id)}/permissions`,
      (id: string) => `/v1/groups/${encodeURIComponent(id)}/members`,
      (id: string) => `/v1/files?$filter=${encodeURIComponent(`id eq '${id.replace(/'/g, "''")}'`)}`,
      (id: string) => `/v1/users?$filter=${encodeURIComponent(`id eq '${id.replace(/'/g, "''")}'`)}`,
      (id: string) => `/v1/groups?$filter=${encodeURIComponent(`id eq '${id.replace(/'/g, "''")}'`)}`,
      (id: string) => `/v1/groups/test%3Ag/members?$filter=${encodeURIComponent(`id eq '${id.replace(/'/g, "''")}'`)}`,
    ];
    await fc.assert(
      fc.asyncProperty(withNul, fc.integer({ min: 0, max: routes.length - 1 }), async (id, route) => {
        const path = (routes[route] as (id: string) => string)(id);
        const refused = await gw.get(path, AUTH);
        expect({ path, status: refused.status, code: refused.body?.error?.code }).toEqual({ path, status: 400, code: 'INPUT_VALIDATION_FAILED' });
        const clean = id.replace(/\u0000/g, '');
        if (clean === '') return;
        const served = await gw.get((routes[route] as (id: string) => string)(clean), AUTH);
        expect([200, 404]).toContain(served.status);
      }),
      { numRuns: 60 },
    );
  });
});
