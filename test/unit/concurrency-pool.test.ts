import fc from 'fast-check';
import { ConcurrencyPool } from '../../src/lib/concurrency-pool';

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
});
