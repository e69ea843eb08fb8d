import fc from 'fast-check';
import { credentialFromAuthorization } from '../../src/http/security/credential-from-authorization';

/** A key as keys are: visible ASCII, no spaces. */
const key = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 64 });
const bearerScheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'beaRer');

describe('credentialFromAuthorization', () => {
  it('reads `Bearer <key>` with one or more spaces, the scheme in any case', () => {
    fc.assert(
      fc.property(bearerScheme, fc.integer({ min: 1, max: 5 }), key, (scheme, spaces, k) => {
        expect(credentialFromAuthorization(`${scheme}${' '.repeat(spaces)}${k}`)).toBe(k);
      }),
    );
  });

  it('reads the bare key', () => {
    fc.assert(
      fc.property(
        key.filter((k) => !/^bearer$/i.test(k)),
        (k) => {
          expect(credentialFromAuthorization(k)).toBe(k);
        },
      ),
    );
  });

  it('ignores whitespace around the value (HTTP trims it; a caller may not have)', () => {
    fc.assert(
      fc.property(fc.constantFrom('', ' ', '\t', ' \t'), key, fc.constantFrom('', ' ', '\t'), (before, k, after) => {
        expect(credentialFromAuthorization(`${before}Bearer ${k}${after}`)).toBe(k);
      }),
    );
  });

  it('reads nothing from anything else: other schemes, tabs or several words, control or non-ASCII characters', () => {
    for (const header of [
      undefined,
      '',
      ' ',
      'Bearer',
      'bearer',
      'Bearer ',
      'Bearer\tkey',
      'Bearer\t junk x',
      'Bearer key x',
      'Bearer key\tx',
      'Basic dXNlcjpwYXNz',
      'Token key',
      'key x',
      'Bearer k\u00e9y',
      'k\u0000ey',
      'Bearer key,Bearer other',
    ]) {
      expect({ header, credential: credentialFromAuthorization(header) }).toEqual({ header, credential: undefined });
    }
    fc.assert(
      fc.property(key, fc.constantFrom('\t', '\u000b', '\u00a0', '\u0000', '\u007f', '\u00e9', '\r'), key, (a, odd, b) => {
        expect(credentialFromAuthorization(`${a}${odd}${b}`)).toBeUndefined();
        expect(credentialFromAuthorization(`Bearer ${a}${odd}${b}`)).toBeUndefined();
      }),
    );
  });

  it('reads two words only when the first is the Bearer scheme', () => {
    fc.assert(
      fc.property(
        key.filter((s) => !/^bearer$/i.test(s)),
        key,
        (scheme, k) => {
          expect(credentialFromAuthorization(`${scheme} ${k}`)).toBeUndefined();
        },
      ),
    );
  });
});
