import fc from 'fast-check';
import { ConcurrencyPool } from '../../src/lib/concurrency-pool';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ConcurrencyPool', () => {
  it('runs every task, never more than `limit` at once, and reaches the limit when there is work', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), async (limit, delays) => {
        const pool = new ConcurrencyPool(limit);
        let running = 0;
        let most = 0;
        const results = await Promise.all(
          delays.map((delay, i) =>
            pool.run(async () => {
              running += 1;
              most = Math.max(most, running);
              await new Promise((resolve) => setTimeout(resolve, delay));
              running -= 1;
              return i;
            }),
          ),
        );
        expect(results).toEqual(delays.map((_, i) => i));
        expect(most).toBe(Math.min(limit, delays.length));
        expect(pool.maxRunning).toBe(most);
      }),
      { numRuns: 30 },
    );
  });

  it('fails only the task that throws, also when it throws instead of rejecting, and goes on with the queue', async () => {
    const pool = new ConcurrencyPool(1);
    const throwing = pool.run((): Promise<number> => {
      throw new Error('thrown, not rejected');
    });
    const rejecting = pool.run(() => Promise.reject(new Error('rejected')));
    const fine = pool.run(async () => 'ran');
    await expect(throwing).rejects.toThrow('thrown, not rejected');
    await expect(rejecting).rejects.toThrow('rejected');
    await expect(fine).resolves.toBe('ran');
    await pool.idle();
    expect(pool.size).toBe(0);
  });

  it('tryRun: never more than `limit` at once, queues at most `queueLimit`, and turns the rest away at once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 4 }),
        fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 20 }),
        async (limit, queueLimit, durations) => {
          const pool = new ConcurrencyPool(limit, { queueLimit, maxWaitMs: 10_000 });
          let now = 0;
          let peak = 0;
          const outcomes = await Promise.all(
            durations.map((ms) =>
              pool.tryRun(async () => {
                now += 1;
                peak = Math.max(peak, now);
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
          expect(pool.size).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('tryRun gives up on a waiter after maxWaitMs, and a failing task frees its slot', async () => {
    const pool = new ConcurrencyPool(1, { queueLimit: 2, maxWaitMs: 20 });
    const slow = pool.tryRun(() => sleep(100).then(() => 'slow'));
    const waiter = pool.tryRun(async () => 'never');
    expect(await waiter).toEqual({ ran: false });
    expect(pool.size).toBe(1);
    expect(await slow).toEqual({ ran: true, value: 'slow' });
    await expect(pool.tryRun(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(
      pool.tryRun(() => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    expect(await pool.tryRun(async () => 1)).toEqual({ ran: true, value: 1 });
    await pool.idle();
    expect(pool.size).toBe(0);
  });

  it('run and tryRun share the slots', async () => {
    const pool = new ConcurrencyPool(1, { queueLimit: 0 });
    let release!: () => void;
    const held = pool.run(() => new Promise<void>((resolve) => (release = resolve)));
    expect(await pool.tryRun(async () => 'no slot')).toEqual({ ran: false });
    release();
    await held;
    expect(await pool.tryRun(async () => 'slot')).toEqual({ ran: true, value: 'slot' });
  });
});
