import crypto from 'node:crypto';
import knex from 'knex';
import { createDb, readWorker, sqliteReadHandle, type Db } from '../../src/staging/database/create-db';
import { StoredPageReader } from '../../src/staging/read-path/stored-page';
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

  it('serve list pages in the database schema as plain rows: no read worker, no SQLite read handle, no aggregate', async () => {
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

  it("read a transaction's list pages on its own connection, seeing what it has written", async () => {
    const trx = await db.transaction();
    let page: unknown;
    try {
      await trx('t').insert({ id: 'bb', json: '{"n":"bb"}' });
      page = await new StoredPageReader(trx, 't', { id: 'id' }, 'id', 'json').read({
        orderBy: { field: 'id', direction: 'asc' },
        filters: [],
        top: 2,
        skip: 0,
        after: ['a'],
      });
    } finally {
      await trx.rollback();
    }
    expect(page).toEqual({ json: Buffer.from('{"n":"é☕"},{"n":"bb"}'), count: 2, next: ['bb'] });
    expect(await db('t').where({ id: 'bb' })).toEqual([]);
  });

  it("read list pages in the sessions knex opens: the URL's options and name, the schema, JIT off", async () => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.searchParams.set('options', '-c statement_timeout=4321 -c lock_timeout=1234');
    url.searchParams.set('application_name', 'parity_check');
    const own = createDb({ databaseUrl: url.toString(), sqlitePath: ':memory:', searchPath: t.env.DATABASE_SCHEMA, maxConnections: 2 });
    const settings =
      "current_setting('search_path') as a, current_setting('statement_timeout') as b, current_setting('lock_timeout') as c, current_setting('jit') as d, current_setting('application_name') as e, (select count(*) from t)::text as f";
    // A view whose one row's JSON is the session's settings: what the list path reads it in.
    await db.raw(`create view session_settings as select 'only'::text as id, row_to_json(s)::text as json from (select ${settings}) s`);
    try {
      const viaKnex = ((await own.raw(`select ${settings}`)) as { rows: Array<Record<string, unknown>> }).rows[0];
      const page = await new StoredPageReader(own, 'session_settings', { id: 'id' }, 'id', 'json').read({
        orderBy: { field: 'id', direction: 'asc' },
        filters: [],
        top: 1,
        skip: 0,
      });
      expect(viaKnex).toEqual({ a: expect.stringContaining(t.env.DATABASE_SCHEMA as string), b: '4321ms', c: '1234ms', d: 'off', e: 'parity_check', f: '3' });
      expect(JSON.parse(page?.json.toString('utf8') ?? '')).toEqual(viaKnex);
    } finally {
      await own.destroy();
    }
  });

  it('open at most `maxConnections` at once, list pages and other statements together, however many wait', async () => {
    const small = createDb({
      databaseUrl: process.env.TEST_DATABASE_URL as string,
      sqlitePath: ':memory:',
      searchPath: t.env.DATABASE_SCHEMA,
      maxConnections: 5,
    });
    const admin = knex({ client: 'pg', connection: process.env.TEST_DATABASE_URL as string, pool: { min: 0, max: 1 } });
    const tag = `pool_${crypto.randomBytes(6).toString('hex')}`;
    await db.raw(`create view ${tag} as select id, json from t, pg_sleep(0.15)`);
    const seen: number[] = [];
    try {
      const reader = new StoredPageReader(small, tag, { id: 'id' }, 'id', 'json');
      const queries = Promise.all([
        ...Array.from({ length: 8 }, () => small.raw(`select pg_sleep(0.15) as ${tag}`)),
        ...Array.from({ length: 8 }, () => reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 2, skip: 0 })),
      ]);
      for (let i = 0; i < 8; i += 1) {
        const { rows } = (await admin.raw(
          "select count(*)::int as n from pg_stat_activity where pid <> pg_backend_pid() and state = 'active' and query like ?",
          [`%${tag}%`],
        )) as { rows: Array<{ n: number }> };
        seen.push(rows[0]?.n ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const answers = await queries;
      expect(answers.slice(8).map((page) => page?.count)).toEqual(Array.from({ length: 8 }, () => 2));
    } finally {
      await small.destroy();
      await admin.destroy();
    }
    expect(Math.max(...seen)).toBe(5);
  });

  it("read list pages on knex's connections, closed with knex", async () => {
    // One connection: the list page's statement and knex's share it.
    const own = createDb({
      databaseUrl: process.env.TEST_DATABASE_URL as string,
      sqlitePath: ':memory:',
      searchPath: t.env.DATABASE_SCHEMA,
      maxConnections: 1,
    });
    const admin = knex({ client: 'pg', connection: process.env.TEST_DATABASE_URL as string, pool: { min: 0, max: 1 } });
    try {
      const { rows } = (await own.raw('select pg_backend_pid() as pid')) as { rows: Array<{ pid: number }> };
      const activity = async (): Promise<Array<{ query: string }>> =>
        ((await admin.raw('select query from pg_stat_activity where pid = ?', [Number(rows[0]?.pid)])) as { rows: Array<{ query: string }> }).rows;
      const seen: string[] = [];
      own.on('query', (q: { sql: string }) => seen.push(q.sql));
      const page = await new StoredPageReader(own, 't', { id: 'id' }, 'id', 'json').read({
        orderBy: { field: 'id', direction: 'asc' },
        filters: [],
        top: 2,
        skip: 0,
      });
      expect(page?.count).toBe(2);
      expect(seen).toHaveLength(1);
      // The page's statement was the last one on knex's one connection.
      expect(await activity()).toEqual([{ query: seen[0] }]);
      await own.destroy();
      // The backend may take a moment to go once its socket closes.
      for (let i = 0; i < 20 && (await activity()).length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await activity()).toEqual([]);
    } finally {
      await own.destroy();
      await admin.destroy();
    }
  });
});
