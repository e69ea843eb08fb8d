import fc from 'fast-check';
import { BoundedConcurrency } from '../../src/lib/bounded-concurrency';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('BoundedConcurrency', () => {
  it('never runs more than `limit` tasks at once, queues at most `queueLimit`, and turns the rest away at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 4 }), fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 20 }), async (limit, queueLimit, durations) => {
        const gate = new BoundedConcurrency(limit, queueLimit, 10_000);
        let now = 0;
        let peak = 0;
        const outcomes = await Promise.all(
          durations.map((ms) =>
            gate.run(async () => {
              now += 1;
              peak = Math.max(peak, now);
              expect(gate.active).toBeLessThanOrEqual(limit);
              await sleep(ms);
              now -= 1;
              return ms;
            }),
          ),
        );
        expect(peak).toBeLessThanOrEqual(limit);
        // All started in the same tick: the first `limit` run, the next `queueLimit` wait their turn, the rest are refused.
        const ran = outcomes.filter((o) => o.ran).length;
        expect(ran).toBe(Math.min(durations.length, limit + queueLimit));
        for (const [i, o] of outcomes.entries()) if (o.ran) expect(o.value).toBe(durations[i]);
        expect([gate.active, gate.queued]).toEqual([0, 0]);
      }),
      { numRuns: 50 },
    );
  });

  it('gives up on a waiter after maxWaitMs, and a failing task frees its slot', async () => {
    const gate = new BoundedConcurrency(1, 2, 20);
    const slow = gate.run(() => sleep(100).then(() => 'slow'));
    const waiter = gate.run(async () => 'never');
    expect(await waiter).toEqual({ ran: false });
    expect(await slow).toEqual({ ran: true, value: 'slow' });
    await expect(gate.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(
      gate.run(() => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    expect(await gate.run(async () => 1)).toEqual({ ran: true, value: 1 });
    expect([gate.active, gate.queued]).toEqual([0, 0]);
  });
});
