import fc from 'fast-check';
import { parseFilter } from '../../../src/mocks/platform/api/odata-query';
import { hasUnterminatedJsonString } from '../../../src/mocks/platform/api/unterminated-json-string';

const FIELDS = new Set(['user_id', 'detail/name']);

/**
 * `@odata/parser` 0.2 loops forever on `$filter=["` (a JSON string that never ends, inside an
 * array): the Data API property test once hung a test worker for half an hour on it. The mock
 * refuses such text with a 400 before the parser runs.
 */
describe('a $filter whose string in double quotes never ends', () => {
  it.each(['["', '[%22', '{"a":"', '["a\\"]', '["a%5C%22]', "user_id eq 'x' or [\"", '["\\', "user_id ne 'a%27 or [\"'"])(
    'is a 400 at once, not a hang: %s',
    (text) => {
      expect(hasUnterminatedJsonString(text)).toBe(true);
      expect(() => parseFilter(text, FIELDS)).toThrow(expect.objectContaining({ kind: 'bad-request', message: expect.stringContaining('never ends') }));
    },
  );

  it.each([
    '["a\\"b"]',
    '[%22a%22]',
    "detail/name eq 'a\"b'",
    "user_id eq 'it''s \"'",
    "user_id eq 'x'",
    'user_id eq %27a"b%27',
    '["a%5c"]',
    "user_id eq 'it%27%27s [\"'",
  ])('leaves closed strings, and double quotes in single-quoted literals, to the parser: %s', (text) => {
    expect(hasUnterminatedJsonString(text)).toBe(false);
  });

  it('a single-quoted literal with any text in it is never taken for an open JSON string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (value) => {
        expect(hasUnterminatedJsonString(`detail/name eq '${value.replace(/'/g, "''")}'`)).toBe(false);
      }),
    );
  });
});
