import fc from 'fast-check';
import { isStorableText } from '../../src/lib/is-storable-text';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { group, htmlFile, user } from '../helpers/staging-fixtures';

/**
 * A query string that is not valid percent-encoding (a `%` that starts no escape, escapes that
 * spell no UTF-8) is refused with 400, instead of being decoded as far as it goes: Node's
 * querystring keeps `%zz` as it is and turns `%FF` into U+FFFD, so `$filter=id eq '%FF'` used to
 * ask for an id nobody sent and answer an empty page.
 */
const INVALID_ESCAPES = ['%', '%z', '%zz', '%FF', '%E2%82', '%C0%AF', '%ED%A0%80', '%%41', '%4'];
/** Invalid whatever follows them (`%4` or a bare `%` may meet hex digits and spell an escape). */
const SPLICED = ['%z', '%zz', '%FF', '%E2%82', '%C0%AF', '%ED%A0%80', '%%41'];
const COLLECTIONS = ['/v1/files', '/v1/users', '/v1/groups', '/v1/groups/test%3Ag/members', '/v1/files/test%3Aa/permissions'];

describe('query strings that are not valid percent-encoding', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
    await gw.writer.putFiles([{ file: htmlFile('test:a'), permissions: [{ type: 'USER', id: 'test:u' }] }]);
    await gw.writer.putUsers([user('test:u')]);
    await gw.writer.putGroups([{ group: group('test:g'), members: [{ type: 'USER', id: 'test:u' }] }]);
  });
  afterAll(() => gw.close());

  const expectRefused = async (pathAndQuery: string): Promise<void> => {
    const res = await gw.get(pathAndQuery, AUTH);
    expect({ pathAndQuery, status: res.status, code: res.body?.error?.code }).toEqual({ pathAndQuery, status: 400, code: 'INPUT_VALIDATION_FAILED' });
    expect(res.body.error.message).toMatch(/percent-encoding/);
  };

  it.each(COLLECTIONS.flatMap((c) => INVALID_ESCAPES.map((e) => [c, e] as const)))("refuses %s?$filter=id eq '…%s…'", (collection, escape) =>
    expectRefused(`${collection}?$filter=id%20eq%20'x${escape}y'`),
  );

  it.each([
    '/v1/files?$select=name%zz',
    '/v1/files?$orderby=id%',
    '/v1/files?$skiptoken=abc%FFdef.x',
    '/v1/files?$top=1%',
    '/v1/files?%zz=1',
    '/v1/files?vendor_option=%E2%82',
    '/v1/files?$filter=id%20eq%20%27a%27&x=%',
    '/v1/files/test%3Aa?x=%FF',
    '/v1/files/test%3Aa/download?x=%',
    '/v1/files/permissions/metadata?x=%zz',
    '/healthz?probe=%',
    '/readyz?probe=%FF',
  ])('refuses %s (every option, ignored ones too)', (pathAndQuery) => expectRefused(pathAndQuery));

  it('still serves valid escapes: %25, %27, %2B, + and UTF-8', async () => {
    expect((await gw.get("/v1/files?$filter=id%20eq%20'test%3Aa'", AUTH)).body.value).toHaveLength(1);
    expect((await gw.get("/v1/files?$filter=id+eq+'test:a'", AUTH)).body.value).toHaveLength(1);
    expect((await gw.get(`/v1/files?$filter=id%20eq%20%27a%25zz%C3%A9%2B%27&vendor=%F0%9F%98%80`, AUTH)).status).toBe(200);
  });

  it('refuses any $filter with an invalid escape spliced in, and never refuses one encoded properly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 30, unit: 'binary' }).filter(isStorableText),
        fc.constantFrom(...SPLICED),
        fc.nat(),
        fc.constantFrom(...COLLECTIONS),
        async (literal, escape, at, collection) => {
          const encoded = encodeURIComponent(`id eq '${literal.replace(/'/g, "''")}'`);
          const cut = at % (encoded.length + 1);
          // Splice between escapes, never inside one.
          const safeCut = encoded.slice(0, cut).replace(/%[0-9A-F]?$/, '').length;
          await expectRefused(`${collection}?$filter=${encoded.slice(0, safeCut)}${escape}${encoded.slice(safeCut)}`);
          expect((await gw.get(`${collection}?$filter=${encoded}`, AUTH)).status).toBe(200);
        },
      ),
      { numRuns: 150 },
    );
  });
});
