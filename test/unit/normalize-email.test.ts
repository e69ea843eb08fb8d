import fc from 'fast-check';
import { caseFold, normalizeEmail } from '../../src/lib/normalize-email';
import { personIdOf } from '../../src/staging/write-path/person-id';

describe('normalizeEmail', () => {
  it.each([
    [' Ana@Example.COM ', 'ana@example.com'],
    ['ａｎａ@ｅｘａｍｐｌｅ.com', 'ana@example.com'], // full-width forms (NFKC)
    ['JU\u0308RGEN@example.com', 'jürgen@example.com'], // decomposed accent, upper case
    ['STRAẞE@example.de', 'strasse@example.de'], // capital sharp s folds to ss, like ß
    ['straße@example.de', 'strasse@example.de'],
    ['ΟΔΥΣΣΕΥΣ@example.gr', 'οδυσσευσ@example.gr'], // no final-sigma context rule
    ['οδυσσευς@example.gr', 'οδυσσευσ@example.gr'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeEmail(input)).toBe(expected);
  });

  it('keeps the dotless ı apart from i, as Unicode case folding does', () => {
    expect(normalizeEmail('ına@example.com')).not.toBe(normalizeEmail('ina@example.com'));
  });

  it('is idempotent and blind to case and surrounding spaces', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-ascii' }), (any, ascii) => {
        expect(normalizeEmail(normalizeEmail(any))).toBe(normalizeEmail(any));
        expect(normalizeEmail(` ${ascii.toUpperCase()}\t`)).toBe(normalizeEmail(ascii.toLowerCase()));
        expect(caseFold(caseFold(any))).toBe(caseFold(any));
      }),
    );
  });
});

describe('personIdOf', () => {
  it('gives every spelling of one address one path-safe id, and an account without an address its own', () => {
    const id = personIdOf('wm:1', 'Ana@Example.com');
    expect(id).toMatch(/^person-[0-9a-f]{32}$/);
    expect(personIdOf('fs:ana', ' ａｎａ@example.COM')).toBe(id);
    expect(personIdOf('fs:bo', 'bo@example.com')).not.toBe(id);
    expect(personIdOf('wm:2', '')).not.toBe(personIdOf('wm:3', ' '));
  });
});
