import fc from 'fast-check';
import { resolveWebConcurrency, serveConnections, shareOf } from '../../src/lib/web-concurrency';

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

  it('gives each serving worker at least 2 Postgres connections, within the budget wherever it allows 2 a worker', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 1_000 }), fc.integer({ min: 1, max: 64 }), (budget, workers) => {
        const each = serveConnections(budget, workers);
        expect(each).toBeGreaterThanOrEqual(2);
        if (budget >= 2 * workers) expect(each * workers).toBeLessThanOrEqual(budget);
        else expect(each).toBe(2);
      }),
    );
    expect(serveConnections(20, 1)).toBe(20);
    expect(serveConnections(6, 2)).toBe(3);
    expect(serveConnections(4, 16)).toBe(2);
  });
});
