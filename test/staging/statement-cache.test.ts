import Database from 'better-sqlite3';
import { cacheStatements } from '../../src/staging/database/statement-cache';

describe('cacheStatements', () => {
  let conn: Database.Database;
  beforeEach(() => {
    conn = new Database(':memory:');
    conn.exec('create table t (id text primary key, n integer not null)');
    cacheStatements(conn, { readers: 3, writers: 2 });
  });
  afterEach(() => conn.close());

  it('hands out one compiled statement per SQL text, readers and writers alike', () => {
    const insert = 'insert into t (id, n) values (?, ?)';
    expect(conn.prepare(insert)).toBe(conn.prepare(insert));
    conn.prepare(insert).run('a', 1);
    conn.prepare(insert).run('b', 2);
    expect(conn.prepare('select id, n from t order by id')).toBe(conn.prepare('select id, n from t order by id'));
    expect(conn.prepare('select id, n from t order by id').all()).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
  });

  it('keeps working after a cached writer fails, with new bindings', () => {
    const insert = 'insert into t (id, n) values (?, ?)';
    conn.prepare(insert).run('a', 1);
    expect(() => conn.prepare(insert).run('a', 2)).toThrow(/UNIQUE/);
    conn.prepare(insert).run('c', 3);
    expect(conn.prepare('select count(*) as c from t').get()).toEqual({ c: 2 });
  });

  it('sees a schema change made after the statement was cached', () => {
    const select = 'select * from t';
    conn.prepare('insert into t (id, n) values (?, ?)').run('a', 1);
    expect(conn.prepare(select).all()).toEqual([{ id: 'a', n: 1 }]);
    conn.exec("alter table t add column note text not null default 'x'");
    expect(conn.prepare(select).all()).toEqual([{ id: 'a', n: 1, note: 'x' }]);
  });

  it('keeps at most `writers` write statements, apart from the readers', () => {
    const insert = (n: number) => `insert into t (id, n) values (?, ${n})`;
    const first = conn.prepare(insert(1));
    const reader = conn.prepare('select 1');
    const second = conn.prepare(insert(2));
    expect(conn.prepare(insert(1))).toBe(first);
    conn.prepare(insert(3)); // evicts insert(2), the least recently used writer
    expect(conn.prepare(insert(1))).toBe(first);
    expect(conn.prepare('select 1')).toBe(reader);
    const again = conn.prepare(insert(2));
    expect(again).not.toBe(second); // compiled again
    expect(conn.prepare(insert(2))).toBe(again);
    again.run('z');
    expect(conn.prepare('select n from t where id = ?').get('z')).toEqual({ n: 2 });
  });

  it('keeps at most `readers` read statements, dropping the least recently used', () => {
    const [a, b, c, d] = ['select 1', 'select 2', 'select 3', 'select 4'];
    const first = conn.prepare(a as string);
    conn.prepare(b as string);
    const evicted = conn.prepare(c as string);
    expect(conn.prepare(a as string)).toBe(first); // a is now the most recently used
    const second = conn.prepare(b as string);
    conn.prepare(d as string); // evicts c, the least recently used
    expect(conn.prepare(a as string)).toBe(first);
    expect(conn.prepare(b as string)).toBe(second);
    const third = conn.prepare(c as string);
    expect(third).not.toBe(evicted); // compiled again
    expect(conn.prepare(c as string)).toBe(third);
    expect(third.get()).toEqual({ 3: 3 });
  });
});
