import { readWorker, type Db } from '../../src/staging/create-db';
import { PgReadWorker } from '../../src/staging/pg-read-worker';
import type { ReadWorker } from '../../src/staging/read-worker';
import { StoredPageReader } from '../../src/staging/stored-page';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases';

const describeWithPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describeWithPostgres('PgReadWorker', () => {
  let t: TestDatabase;
  let db: Db;
  beforeEach(async () => {
    // A schema of its own, holding a table `t` that no other schema on the server has.
    t = await createTestDatabase('postgres');
    db = t.db;
    await db.schema.createTable('t', (table) => {
      table.text('id').primary();
      table.text('json').notNullable();
    });
    await db('t').insert([
      { id: 'a', json: '{"n":1}' },
      { id: 'b', json: '{"n":"é☕"}' },
    ]);
  });
  afterEach(() => t.destroy());

  function worker(): ReadWorker {
    const found = readWorker(db);
    expect(found).toBeInstanceOf(PgReadWorker);
    return found as ReadWorker;
  }

  it('opens its sessions, and knex opens the main ones, with JIT compilation off', async () => {
    const [viaWorker] = await worker().run({ sql: 'show jit', bindings: [] });
    expect(viaWorker).toEqual({ jit: 'off' });
    const viaKnex = (await db.raw('show jit')) as { rows: Array<{ jit: string }> };
    expect(viaKnex.rows).toEqual([{ jit: 'off' }]);
  });

  it('runs reads off the main thread in the database schema, and sees what the main connection committed', async () => {
    const sql = "select string_agg(json, ',') as items, count(*) as n from (select json from t where id > $1 order by id) as page";
    const [first] = await worker().run({ sql, bindings: [''], name: 'pg_read_worker_test', bytes: ['items'] });
    expect(Buffer.isBuffer(first?.items)).toBe(true);
    expect((first?.items as Buffer).toString('utf8')).toBe('{"n":1},{"n":"é☕"}');
    expect(first?.n).toBe('2');
    await db('t').insert({ id: 'c', json: '{"n":3}' });
    const [second] = await worker().run({ sql, bindings: ['a'], name: 'pg_read_worker_test', bytes: ['items'] });
    expect((second?.items as Buffer).toString('utf8')).toBe('{"n":"é☕"},{"n":3}');
  });

  it('reports SQL errors as errors, and stays usable', async () => {
    await expect(worker().run({ sql: 'select nope from t', bindings: [] })).rejects.toThrow(/column "nope" does not exist/);
    expect(worker().usable).toBe(true);
    expect(await worker().run({ sql: 'select count(*)::int as n from t', bindings: [] })).toEqual([{ n: 2 }]);
  });

  it('runs many queries at once, each answered with its own rows', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => worker().run({ sql: 'select $1::int as i, count(*)::int as n from t', bindings: [i], name: 'pg_read_worker_many' })));
    expect(answers.map((rows) => rows[0])).toEqual(Array.from({ length: 100 }, (_, i) => ({ i, n: 2 })));
  });

  it('is closed when its database is destroyed', async () => {
    const other = await createTestDatabase('postgres');
    const closing = readWorker(other.db) as ReadWorker;
    expect(await closing.run({ sql: 'select 1 as one', bindings: [] })).toEqual([{ one: 1 }]);
    await other.destroy();
    expect(closing.usable).toBe(false);
    await expect(closing.run({ sql: 'select 1', bindings: [] })).rejects.toThrow(/not available/);
  });

  it('once closed, leaves pages to the main thread, on knex pool connections', async () => {
    await worker().run({ sql: 'select 1 as one', bindings: [] });
    await worker().close();
    const reader = new StoredPageReader(db, 't', { id: 'id' }, 'id', 'json');
    const page = await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 1, skip: 0 });
    expect(page?.json.toString('utf8')).toBe('{"n":1}');
    expect(page?.next).toEqual(['a']);
  });
});
