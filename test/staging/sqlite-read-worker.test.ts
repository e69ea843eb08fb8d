import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, readWorker, type Db } from '../../src/staging/database/create-db';
import { SqliteReadWorker } from '../../src/staging/database/sqlite-read-worker';
import { StoredPageReader } from '../../src/staging/read-path/stored-page';

/** The SQLite file's read worker (it must be one). */
function sqliteReadWorker(db: Db): SqliteReadWorker {
  const worker = readWorker(db);
  expect(worker).toBeInstanceOf(SqliteReadWorker);
  return worker as SqliteReadWorker;
}

describe('SqliteReadWorker', () => {
  let dir: string;
  let db: Db;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-read-worker-'));
    db = createDb({ sqlitePath: path.join(dir, 'db.sqlite') });
    await db.schema.createTable('t', (t) => {
      t.text('id').primary();
      t.text('json').notNullable();
    });
    await db('t').insert([
      { id: 'a', json: '{"n":1}' },
      { id: 'b', json: '{"n":"é☕"}' },
    ]);
  });
  afterEach(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs reads off the main thread and sees what the main connection committed', async () => {
    const worker = sqliteReadWorker(db);
    expect(worker?.usable).toBe(true);
    const sql = "select cast(group_concat(json, ',') as blob) as items, count(*) as n from (select json from t where id > ? order by id)";
    const [first] = (await worker?.run({ sql, bindings: [''] })) ?? [];
    expect(Buffer.isBuffer(first?.items)).toBe(true);
    expect((first?.items as Buffer).toString('utf8')).toBe('{"n":1},{"n":"é☕"}');
    expect(first?.n).toBe(2);
    await db('t').insert({ id: 'c', json: '{"n":3}' });
    const [second] = (await worker?.run({ sql, bindings: ['a'] })) ?? [];
    expect((second?.items as Buffer).toString('utf8')).toBe('{"n":"é☕"},{"n":3}');
  });

  it('refuses statements that write, and reports SQL errors as errors (the worker stays usable)', async () => {
    const worker = sqliteReadWorker(db);
    await expect(worker.run({ sql: "insert into t (id, json) values ('x', '{}')", bindings: [] })).rejects.toThrow(/read statements only/);
    await expect(worker.run({ sql: 'select nope from t', bindings: [] })).rejects.toThrow(/no such column/);
    expect(worker.usable).toBe(true);
    expect(await db('t').where({ id: 'x' }).first()).toBeUndefined();
    expect(await worker.run({ sql: 'select count(*) as n from t', bindings: [] })).toEqual([{ n: 2 }]);
  });

  it('runs many queries at once, each answered with its own rows', async () => {
    const worker = sqliteReadWorker(db);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => worker.run({ sql: 'select ? as i, count(*) as n from t', bindings: [i] })));
    expect(answers.map((rows) => rows[0]?.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('is not used again once it failed (here: its database file is gone), and says so', async () => {
    const broken = new SqliteReadWorker(path.join(dir, 'missing.sqlite'), { mmapBytes: 0, busyTimeoutMs: 5000 });
    await expect(broken.run({ sql: 'select 1', bindings: [] })).rejects.toThrow(/read worker failed: .*(unable to open|does not exist|missing)/i);
    expect(broken.usable).toBe(false);
    await expect(broken.run({ sql: 'select 1', bindings: [] })).rejects.toThrow(/not available/);
    await broken.close();
  });

  it('is closed when its database is destroyed', async () => {
    const other = createDb({ sqlitePath: path.join(dir, 'db.sqlite') });
    const worker = sqliteReadWorker(other);
    expect(await worker.run({ sql: 'select count(*) as n from t', bindings: [] })).toEqual([{ n: 2 }]);
    await other.destroy();
    expect(worker.usable).toBe(false);
    await expect(worker.run({ sql: 'select 1', bindings: [] })).rejects.toThrow(/not available/);
  });

  it('once closed, leaves pages to the main connection', async () => {
    const worker = sqliteReadWorker(db);
    await worker.run({ sql: 'select 1 as one', bindings: [] });
    await worker.close();
    expect(worker.usable).toBe(false);
    const reader = new StoredPageReader(db, 't', { id: 'id' }, 'id', 'json');
    const page = await reader.read({ orderBy: { field: 'id', direction: 'asc' }, filters: [], top: 1, skip: 0 });
    expect(page?.json.toString('utf8')).toBe('{"n":1}');
    expect(page?.next).toEqual(['a']);
  });
});
