import crypto from 'node:crypto';
import fc from 'fast-check';
import { encodedLength, globalId, MAX_ID_LENGTH } from '../../src/wire/global-id';

const sourceArb = fc.stringMatching(/^[a-z][a-z0-9-]{0,31}$/);
/** Native ids of every length around the limit: ASCII, characters of 2, 3 and 4 UTF-8 bytes, lone surrogates, the digest's own shape. */
const nativeArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', '/', ':', 'é', '中', '😀', ' ', '%'), minLength: 80, maxLength: 1100 }),
  fc.tuple(fc.constantFrom('x', 'é', '中', '😀', '/'), fc.integer({ min: 0, max: 1100 })).map(([unit, n]) => unit.repeat(n)),
  fc.string({ unit: fc.constantFrom('a', '\ud800', '\udc00'), maxLength: 20 }),
  fc.stringMatching(/^[0-9a-f]{64}$/).map((hex) => `~${hex}`),
);

describe('globalId, the served id of a source item', () => {
  it('is at most MAX_ID_LENGTH characters percent-encoded, whatever the native id', () => {
    fc.assert(
      fc.property(sourceArb, nativeArb, (source, nativeId) => {
        const id = globalId(source, nativeId);
        expect(encodedLength(id)).toBeLessThanOrEqual(MAX_ID_LENGTH);
        expect(id.startsWith(`${source}:`)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('is <source>:<native id> exactly when that fits and is not of the digest shape, and the digest of the native id otherwise', () => {
    fc.assert(
      fc.property(sourceArb, nativeArb, (source, nativeId) => {
        const plain = `${source}:${nativeId}`;
        const fits = (encodedLength(plain) ?? Infinity) <= MAX_ID_LENGTH && !/^~[0-9a-f]{64}$/.test(nativeId);
        expect(globalId(source, nativeId)).toBe(fits ? plain : `${source}:~${crypto.hash('sha256', nativeId, 'hex')}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives distinct native ids of a source distinct ids', () => {
    fc.assert(
      fc.property(
        sourceArb,
        fc.uniqueArray(
          nativeArb.filter((n) => !/[\ud800-\udfff]/.test(n)),
          { minLength: 2, maxLength: 20 },
        ),
        (source, natives) => {
          expect(new Set(natives.map((n) => globalId(source, n))).size).toBe(natives.length);
        },
      ),
    );
  });

  it('draws the line at 1,024 characters percent-encoded, counting every byte of a multi-byte character', () => {
    // `src:` is `src%3A`, 6 characters; `é` is 6 (`%C3%A9`), `中` 9, `😀` 12.
    for (const [unit, fits] of [
      ['x', 1018],
      ['é', 169],
      ['中', 113],
      ['😀', 84],
    ] as const) {
      expect(globalId('src', unit.repeat(fits))).toBe(`src:${unit.repeat(fits)}`);
      expect(globalId('src', unit.repeat(fits + 1))).toMatch(/^src:~[0-9a-f]{64}$/);
    }
  });
});
