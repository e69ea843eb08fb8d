import crypto from 'node:crypto';
import knex from 'knex';
import { createDb, readWorker, sqliteReadHandle, type Db } from '../../src/staging/create-db';
import { StoredPageReader } from '../../src/staging/stored-page';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases';

const describeWithPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describeWithPostgres('Postgres sessions', () => {
  let t: TestDatabase;
  let db: Db;
  beforeEach(async () => {
    // A schema of its own, holding a table `t` that no other schema on the server has.
    t = await createTestDatabase('postgres');
    db = t.db;
    await db.schema.createTable('t', (table) => {
      table.text('id').primary();
      table.text('json');
    });
    await db('t').insert([
      { id: 'a', json: '{"n":1}' },
      { id: 'b', json: '{"n":"é☕"}' },
      { id: 'c', json: '{"n":3}' },
    ]);
  });
  afterEach(() => t.destroy());

  it('run with JIT compilation off', async () => {
    const viaKnex = (await db.raw('show jit')) as { rows: Array<{ jit: string }> };
    expect(viaKnex.rows).toEqual([{ jit: 'off' }]);
  });

  it("serve list pages on knex's pool, in the database schema: no read worker, no SQLite read handle", async () => {
    expect(readWorker(db)).toBeUndefined();
    expect(sqliteReadHandle(db)).toBeUndefined();
    const seen: string[] = [];
    const listener = (q: { sql: string }): void => {
      seen.push(q.sql);
    };
    const reader = new StoredPageReader(db, 't', { id: 'id' }, 'id', 'json');
    db.on('query', listener);
    const first = await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 2, skip: 0 });
    expect(first?.json.toString('utf8')).toBe('{"n":1},{"n":"é☕"}');
    expect(first?.next).toEqual(['b']);
    db.off('query', listener);
    await db('t').insert({ id: 'd', json: '{"n":4}' });
    db.on('query', listener);
    const second = await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 2, skip: 0, after: ['b'] });
    db.off('query', listener);
    expect(second).toEqual({ json: Buffer.from('{"n":3},{"n":4}'), count: 2 });
    // Each page is the keyset query's rows, one statement, with no aggregate for the backend to build.
    expect(seen).toHaveLength(2);
    for (const sql of seen) expect(sql).not.toMatch(/string_agg|json_agg/);
  });

  it('leave a page with a row that has no JSON to the row-by-row read', async () => {
    await db('t').where({ id: 'b' }).update({ json: null });
    const reader = new StoredPageReader(db, 't', { id: 'id' }, 'id', 'json');
    // The row after the page (b) has none: declined; so is a page holding it.
    expect(await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 1, skip: 0 })).toBeUndefined();
    expect(await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 1, skip: 0, after: ['a'] })).toBeUndefined();
    expect(await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 1, skip: 0, after: ['b'] })).toEqual({ json: Buffer.from('{"n":3}'), count: 1 });
  });

  it('open at most `maxConnections` at once, however many queries wait', async () => {
    const url = process.env.TEST_DATABASE_URL as string;
    const small = createDb({ databaseUrl: url, sqlitePath: ':memory:', maxConnections: 3 });
    const admin = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    const tag = `pool_${crypto.randomBytes(6).toString('hex')}`;
    const seen: number[] = [];
    try {
      const queries = Promise.all(Array.from({ length: 8 }, () => small.raw(`select pg_sleep(0.15) as ${tag}`)));
      for (let i = 0; i < 8; i += 1) {
        const { rows } = (await admin.raw('select count(*)::int as n from pg_stat_activity where query like ?', [`%as ${tag}`])) as { rows: Array<{ n: number }> };
        seen.push(rows[0]?.n ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await queries;
    } finally {
      await small.destroy();
      await admin.destroy();
    }
    expect(Math.max(...seen)).toBe(3);
  });
});
