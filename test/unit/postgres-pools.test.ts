import { ConfigError, loadConfig } from '../../src/config/load-config';
import { shareOf } from '../../src/lib/web-concurrency';
import { postgresPools } from '../../src/staging/create-db';

describe('DATABASE_MAX_CONNECTIONS', () => {
  it('defaults to 20 and refuses fewer than 2', () => {
    expect(loadConfig({}).databaseMaxConnections).toBe(20);
    expect(loadConfig({ DATABASE_MAX_CONNECTIONS: '7' }).databaseMaxConnections).toBe(7);
    for (const bad of ['1', '0', '-3', '2.5', 'many']) expect(() => loadConfig({ DATABASE_MAX_CONNECTIONS: bad })).toThrow(ConfigError);
  });

  it('splits a process budget between queries (the larger half) and the list-page worker, one each at least', () => {
    expect([2, 3, 6, 20, 21].map(postgresPools)).toEqual([
      { knex: 1, worker: 1 },
      { knex: 2, worker: 1 },
      { knex: 3, worker: 3 },
      { knex: 10, worker: 10 },
      { knex: 11, worker: 10 },
    ]);
    expect(postgresPools(1)).toEqual({ knex: 1, worker: 1 });
  });

  it('never lets the workers of a host open more than the budget, when it allows 2 each', () => {
    for (const budget of [4, 6, 20, 33, 100]) {
      for (let workers = 1; workers <= budget / 2; workers += 1) {
        const share = postgresPools(Math.max(2, shareOf(budget, workers)));
        expect((share.knex + share.worker) * workers).toBeLessThanOrEqual(budget);
      }
    }
  });
});
