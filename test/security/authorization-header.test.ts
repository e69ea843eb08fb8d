import fc from 'fast-check';
import { AUTH, TEST_KEYS, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * The documented forms, as the README states them: `Bearer <key>` (scheme in any case, one or more
 * spaces) or the bare key; a key is visible ASCII without spaces. The server trims the header
 * value's surrounding whitespace (HTTP's OWS) before anyone reads it.
 */
function documentedKey(header: string): string | undefined {
  const value = header.replace(/^[ \t]+|[ \t]+$/g, '');
  const bearer = /^bearer +([\x21-\x7e]+)$/i.exec(value);
  if (bearer) return bearer[1];
  return /^[\x21-\x7e]+$/.test(value) && !/^bearer$/i.test(value) ? value : undefined;
}

const KEY = TEST_KEYS[0];
const UNAUTHORIZED = { error: { code: 'AUTHENTICATION_FAILED', message: 'Bearer token missing or invalid.' } };
/** Everywhere but the header that a credential could be looked for. */
const ELSEWHERE = ['access_token', 'ACCESS_TOKEN', 'access%5Ftoken', 'token', 'apikey', 'api_key', 'key', 'bearer'].map((name) => `${name}=${KEY}`);

describe('credentials come from the Authorization header only', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Dozens of refused credentials on purpose: no failure budget (test/security/auth-failure-limit.test.ts tests it).
    gw = await startTestGateway('sqlite', { authFailureLimit: 0 });
  });
  afterAll(() => gw.close());

  it.each([
    ['a tab after Bearer and a second word', 'Bearer\tjunk x'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['three words', 'Bearer junk x'],
    ['a scheme only', 'Bearer'],
    ['a comma-separated list', `Bearer junk, Bearer ${KEY}`],
  ])('refuses %s in the header even with the key in the query string', async (_what, header) => {
    for (const query of ELSEWHERE) {
      const res = await gw.get(`/v1/files?${query}`, { Authorization: header });
      expect({ query, status: res.status, body: res.body }).toEqual({ query, status: 401, body: UNAUTHORIZED });
    }
  });

  it('refuses a key in the query string without any header', async () => {
    for (const query of ELSEWHERE) expect((await gw.get(`/v1/files?${query}`)).status).toBe(401);
  });

  it('serves the two documented forms, whatever the scheme case and the number of spaces', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TEST_KEYS),
        fc.oneof(
          fc.constant(''),
          fc.tuple(fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'), fc.integer({ min: 1, max: 4 })).map(([s, n]) => `${s}${' '.repeat(n)}`),
        ),
        async (key, prefix) => {
          const res = await gw.get('/v1/files', { Authorization: `${prefix}${key}` });
          expect(res.status).toBe(200);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('answers 401 AUTHENTICATION_FAILED to every other header, with the key anywhere else in the request', async () => {
    const piece = fc.oneof(
      fc.constantFrom('Bearer', 'bearer', 'Basic', 'Token', 'Bearer:', 'Bearer,', ',', '=', '"', KEY, TEST_KEYS[1], `${KEY}x`, 'junk', 'x'),
      fc.string({ unit: fc.constantFrom(' ', '\t', 'a', 'Z', '0', '-', '.', '~', '+', '/', '=', ',', ':', '\u00e9') }),
    );
    const separator = fc.constantFrom(' ', '\t', '  ', ' \t ', '', ', ', ',');
    const freeForm = fc.array(fc.tuple(piece, separator), { minLength: 1, maxLength: 4 }).map((parts) => parts.map(([p, s]) => `${p}${s}`).join(''));
    // Near misses of `Bearer <key>`: a scheme, any separator, a credential, maybe more words.
    const nearMiss = fc
      .tuple(
        fc.constantFrom('Bearer', 'bearer', 'Basic', 'Token', 'Bearer:'),
        fc.constantFrom(' ', '\t', '  '),
        piece,
        fc.option(fc.tuple(fc.constantFrom(' ', '\t'), piece), { nil: undefined }),
      )
      .map(([scheme, sep, credential, more]) => `${scheme}${sep}${credential}${more ? `${more[0]}${more[1]}` : ''}`);
    const header = fc.oneof(freeForm, nearMiss);
    await fc.assert(
      fc.asyncProperty(header, fc.constantFrom(...ELSEWHERE), async (value, query) => {
        const expected = TEST_KEYS.includes(documentedKey(value) as (typeof TEST_KEYS)[number]) ? 200 : 401;
        const res = await gw.get(`/v1/files?access_token=${KEY}&${query}`, { Authorization: value, 'X-Api-Key': KEY });
        expect({ value, status: res.status }).toEqual({ value, status: expected });
        if (expected === 401) expect(res.body).toEqual(UNAUTHORIZED);
      }),
      { numRuns: 300 },
    );
  });

  it('still takes the key with the documented header beside unrelated query parameters', async () => {
    expect((await gw.get('/v1/files?$top=1&access_token=junk', AUTH)).status).toBe(200);
  });
});
