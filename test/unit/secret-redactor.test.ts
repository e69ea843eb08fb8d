import fc from 'fast-check';
import { CREDENTIAL_NAMES, SecretRedactor, isCredentialName } from '../../src/http/security/secret-redactor';

const SECRET = 'configured-secret-0123456789abcdef';
const redactor = new SecretRedactor([SECRET, undefined, '']);
const hex = (c: string, upper: boolean): string => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`;
/** Text as a client might spell it: each character as is, upper- or lower-cased (names only), or escaped (once or twice). */
const spelled = (name: string, cases = true): fc.Arbitrary<string> =>
  fc
    .array(fc.constantFrom(...(cases ? (['same', 'upper', 'lower', 'escape', 'twice'] as const) : (['same', 'escape', 'twice'] as const))), {
      minLength: name.length,
      maxLength: name.length,
    })
    .map((how) =>
      [...name]
        .map((c, i) =>
          how[i] === 'upper'
            ? c.toUpperCase()
            : how[i] === 'lower'
              ? c.toLowerCase()
              : how[i] === 'escape'
                ? hex(c, true)
                : how[i] === 'twice'
                  ? hex(c, false).replace('%', '%25')
                  : c,
        )
        .join(''),
    );
const USUAL = [
  'access_token',
  'token',
  'apikey',
  'api_key',
  'key',
  'secret',
  'client_secret',
  'password',
  'auth',
  'authorization',
  'sig',
  'signature',
  'code',
  'refresh_token',
  'id_token',
  'x-api-key',
];
const value = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '-', '.', '~', '%', '+', '/', ':'), maxLength: 30 });
const plainName = fc.constantFrom('$top', '$skip', '$skiptoken', '$filter', '$select', '$orderby', '$count', 'q', 'page', 'author', 'keyword');

describe('SecretRedactor.redactUrl', () => {
  it('redacts the value of every usual credential parameter, whatever its case and escapes, and keeps the rest of the URL as sent', () => {
    expect(USUAL.filter((n) => !isCredentialName(n))).toEqual([]);
    fc.assert(
      fc.property(
        fc.constantFrom(...USUAL).chain(spelled),
        fc.constantFrom('', '[]', '[0]'),
        value,
        fc.constantFrom('', '$top=5&', 'q=x;'),
        fc.constantFrom('', '&$select=id'),
        (name, suffix, v, before, after) => {
          const url = `/v1/files?${before}${name}${suffix}=${v}${after}`;
          expect(redactor.redactUrl(url)).toBe(`/v1/files?${before}${name}${suffix}=[redacted]${after}`);
        },
      ),
    );
  });

  it('treats every deny-listed name, and names that contain token, secret, password or similar, as credentials (not OData options)', () => {
    for (const name of CREDENTIAL_NAMES) expect(isCredentialName(name)).toBe(true);
    for (const name of [
      'my_access_token',
      'X-Amz-Security-Token',
      'X-Amz-Signature',
      'oauth_signature',
      'DB_PASSWORD',
      'aws-credential',
      'x-auth',
      'CLIENT%5FSECRET',
      'ApiKey[]',
    ])
      expect({ name, credential: isCredentialName(name) }).toEqual({ name, credential: true });
    for (const name of ['$skiptoken', '$top', '$filter', 'q', 'page', 'id', 'author', 'keyword', 'monkey'])
      expect({ name, credential: isCredentialName(name) }).toEqual({ name, credential: false });
  });

  it('leaves URLs without credentials alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(plainName, value), { maxLength: 4 }),
        fc.constantFrom('/v1/files', '/v1/files/demo%3Aa%2Fb.pdf/download', '/v1/groups/g/members'),
        (pairs, path) => {
          const url = pairs.length ? `${path}?${pairs.map(([n, v]) => `${n}=${v}`).join('&')}` : path;
          expect(redactor.redactUrl(url)).toBe(url);
        },
      ),
    );
  });

  it('replaces the whole URL when a configured secret is anywhere in it, in any encoding', () => {
    fc.assert(
      fc.property(
        spelled(SECRET, false),
        fc.constantFrom(
          (s: string) => `/v1/files/${s}`,
          (s: string) => `/v1/files?${s}=1`,
          (s: string) => `/v1/files?q=${s}`,
          (s: string) => `/v1/files?$filter=id eq '${s}'`,
          (s: string) => `/${s}`,
        ),
        (secret, place) => {
          expect(redactor.redactUrl(place(secret))).toBe('[redacted]');
        },
      ),
    );
    expect(redactor.redactUrl(`/v1/files?token=${SECRET}`)).toBe('/v1/files?token=[redacted]');
  });

  it('redacts JWTs (issued access tokens) wherever they are', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGF0Zm9ybSJ9.c2lnbmF0dXJl';
    expect(redactor.redactUrl(`/v1/files?q=${jwt}&$top=1`)).toBe('/v1/files?q=[redacted]&$top=1');
    expect(redactor.redactUrl(`/v1/files/${jwt}`)).toBe('/v1/files/[redacted]');
  });
});

describe('SecretRedactor.holdsSecret', () => {
  it('finds a configured secret as written, escaped once or twice, and nothing in text without it', () => {
    fc.assert(
      // (Around it, no `%`: `%a` before `c...` would make `%ac` an escape, and no decoding would spell the secret.)
      fc.property(
        spelled(SECRET, false),
        value.map((v) => v.replace(/%/g, '')),
        value,
        (secret, a, b) => {
          expect(redactor.holdsSecret(`${a}${secret}${b}`)).toBe(true);
        },
      ),
    );
    fc.assert(
      fc.property(value, (text) => {
        expect(redactor.holdsSecret(text)).toBe(false);
      }),
    );
    expect(new SecretRedactor([]).holdsSecret(SECRET)).toBe(false);
  });
});
