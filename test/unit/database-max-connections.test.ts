import { ConfigError, loadConfig } from '../../src/config/load-config';
import { shareOf } from '../../src/lib/web-concurrency';
import { createDb } from '../../src/staging/create-db';

/** The most connections knex's pool for `maxConnections` opens (connecting is lazy: nothing is opened here). */
async function poolSize(maxConnections: number): Promise<number> {
  const db = createDb({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', sqlitePath: ':memory:', maxConnections });
  try {
    return (db.client.config as { pool: { max: number } }).pool.max;
  } finally {
    await db.destroy();
  }
}

describe('DATABASE_MAX_CONNECTIONS', () => {
  it('defaults to 20 and refuses fewer than 2', () => {
    expect(loadConfig({}).databaseMaxConnections).toBe(20);
    expect(loadConfig({ DATABASE_MAX_CONNECTIONS: '7' }).databaseMaxConnections).toBe(7);
    for (const bad of ['1', '0', '-3', '2.5', 'many']) expect(() => loadConfig({ DATABASE_MAX_CONNECTIONS: bad })).toThrow(ConfigError);
  });

  it("is the size of a process's one Postgres pool", async () => {
    expect(await Promise.all([2, 3, 20].map(poolSize))).toEqual([2, 3, 20]);
  });

  it('never lets the workers of a host open more than the budget', async () => {
    for (const budget of [4, 6, 20, 33, 100]) {
      for (let workers = 1; workers <= budget / 2; workers += 1) {
        expect((await poolSize(Math.max(2, shareOf(budget, workers)))) * workers).toBeLessThanOrEqual(budget);
      }
    }
  });
});
