import fc from 'fast-check';
import { clientLimitOf } from '../../src/http/middleware/admission';

describe("clientLimitOf: a client's slots of the concurrency cap", () => {
  it('leaves another client at least one slot, and gives every client at least one, for any cap and share below 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 10_000 }), fc.double({ min: 0.0001, max: 0.9999, noNaN: true }), (cap, share) => {
        const own = clientLimitOf(cap, share);
        return Number.isInteger(own) && own >= 1 && own <= cap - 1 && own >= Math.min(cap - 1, Math.floor(cap * share));
      }),
    );
  });

  it('is the whole cap with a share of 1, with no cap (0), and with a cap of one slot', () => {
    expect([clientLimitOf(64, 1), clientLimitOf(0, 0.75), clientLimitOf(1, 0.75)]).toEqual([64, 0, 1]);
  });

  it('gives the platform 48 of the default 64, and 12 of 16', () => {
    expect([clientLimitOf(64, 0.75), clientLimitOf(16, 0.75), clientLimitOf(4, 0.75), clientLimitOf(2, 0.75)]).toEqual([48, 12, 3, 1]);
  });
});
