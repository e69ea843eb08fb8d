import { parseRetryAfter } from '../../src/lib/parse-retry-after';

describe('parseRetryAfter', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['  7 ', 7_000],
    ['1.5', 1_500],
    ['Sun, 01 Mar 2026 12:00:30 GMT', 30_000],
    ['Sunday, 01-Mar-26 12:01:00 GMT', 60_000],
    ['Sun Mar  1 12:00:05 2026', 5_000],
    ['Sun, 01 Mar 2026 12:00:00 GMT', 0],
    ['Sun, 01 Mar 2026 11:59:00 GMT', undefined],
    ['-5', undefined],
    ['', undefined],
    ['soon', undefined],
    ['1e3', undefined],
    ['0x10', undefined],
    ['2026-03-01T12:00:30Z', undefined],
    ['Sun, 01 Mar 2026 12:00:30 PST', undefined],
    [null, undefined],
    [undefined, undefined],
  ])('%j → %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
