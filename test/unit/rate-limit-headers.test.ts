import fc from 'fast-check';
import { announcedLimit } from '../../src/adapters/rest/rate-limit-headers';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);

describe('announcedLimit: the budget an answer announces, in each dialect', () => {
  it('reads requests left and the reset in every dialect, the reset as seconds from now or an epoch time', () => {
    const dialects = (remaining: number, reset: number): Array<Record<string, string>> => [
      { 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset) },
      { 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) },
      { ratelimit: `"default";r=${remaining};t=${reset}` },
      { ratelimit: `limit=100, remaining=${remaining}, reset=${reset}` },
    ];
    fc.assert(
      fc.property(fc.nat(100_000), fc.integer({ min: 0, max: 86_400 }), (remaining, reset) => {
        for (const headers of dialects(remaining, reset)) expect(announcedLimit(new Headers(headers), NOW)).toEqual({ remaining, resetMs: reset * 1000 });
      }),
    );
    // GitHub sends the reset as an epoch time in seconds; one in the past means now.
    expect(announcedLimit(new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 42) }), NOW)).toEqual({
      remaining: 0,
      resetMs: 42_000,
    });
    expect(announcedLimit(new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 - 5) }), NOW)).toEqual({
      remaining: 0,
      resetMs: 0,
    });
  });

  it('announces nothing without both a remaining count and a reset, and never anything but whole, non-negative figures', () => {
    expect(announcedLimit(new Headers({ 'x-ratelimit-remaining': '0' }), NOW)).toBeUndefined();
    expect(announcedLimit(new Headers({ 'x-ratelimit-limit': '600' }), NOW)).toBeUndefined();
    const names = fc.constantFrom('x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit', 'retry-after');
    const value = fc.oneof(fc.string(), fc.integer().map(String), fc.double().map(String));
    fc.assert(
      fc.property(fc.dictionary(names, value), (given) => {
        const headers = new Headers();
        for (const [name, v] of Object.entries(given)) {
          try {
            headers.set(name, v);
          } catch {
            return; // not a valid header value: no answer carries it
          }
        }
        const limit = announcedLimit(headers, NOW);
        if (limit === undefined) return;
        expect(Number.isFinite(limit.remaining) && limit.remaining >= 0).toBe(true);
        expect(Number.isFinite(limit.resetMs) && limit.resetMs >= 0).toBe(true);
      }),
    );
  });
});
