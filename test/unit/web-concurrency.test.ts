import fc from 'fast-check';
import { resolveWebConcurrency, shareOf } from '../../src/lib/web-concurrency';

describe('WEB_CONCURRENCY', () => {
  it('auto is one worker per CPU in production and a single process otherwise; a number is taken as it is', () => {
    expect(resolveWebConcurrency('auto', true, 2)).toBe(2);
    expect(resolveWebConcurrency('auto', true, 16)).toBe(16);
    expect(resolveWebConcurrency('auto', false, 16)).toBe(1);
    expect(resolveWebConcurrency('auto', true, 0)).toBe(1);
    expect(resolveWebConcurrency(3, false, 16)).toBe(3);
  });

  it("divides a host-wide limit so the workers' shares never add up to more than it, each at least 1", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 64 }), (limit, workers) => {
        const share = shareOf(limit, workers);
        expect(share).toBeGreaterThanOrEqual(1);
        if (limit >= workers) {
          expect(share * workers).toBeLessThanOrEqual(limit);
          expect((share + 1) * workers).toBeGreaterThan(limit);
        }
      }),
    );
    expect(shareOf(64, 2)).toBe(32);
    expect(shareOf(0, 4)).toBe(0); // no limit stays no limit
    expect(shareOf(64, 1)).toBe(64);
  });
});
