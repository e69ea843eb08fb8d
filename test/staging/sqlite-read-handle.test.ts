import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { htmlFile } from '../helpers/staging-fixtures';
import { sqliteReadHandle } from '../../src/staging/database/create-db';
import { FilesRepository } from '../../src/staging/repositories/files-repository';
import { SqliteReadHandle } from '../../src/staging/database/sqlite-read-handle';
import { StagingWriter } from '../helpers/staging-writer';

describe('single-file reads on the SQLite read handle', () => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase('sqlite');
    await new StagingWriter(t.db).putFiles([{ file: htmlFile('f1', { name: 'before.html' }), permissions: [] }]);
  });
  afterEach(async () => {
    await t.destroy();
  });

  it('reads what is committed while a write transaction holds the main connection, and sees it once committed', async () => {
    const files = new FilesRepository(t.db);
    const trx = await t.db.transaction();
    try {
      await trx('files').where({ id: 'f1' }).update({ name: 'after.html' });
      // The main connection (knex's pool of one) is held by the transaction: a read through it would wait.
      expect((await files.getFile('f1'))?.name).toBe('before.html');
      expect((await files.getFileMeta('f1'))?.name).toBe('before.html');
      await trx.commit();
    } catch (error) {
      await trx.rollback();
      throw error;
    }
    expect((await files.getFile('f1'))?.name).toBe('after.html');
    expect((await files.getFileMeta('f1'))?.name).toBe('after.html');
    expect(await files.getFile('missing')).toBeUndefined();
    expect(await files.getFileMeta('missing')).toBeUndefined();
  });

  it('runs read statements only, and none once closed', () => {
    const handle = sqliteReadHandle(t.db) as SqliteReadHandle;
    expect(handle).toBeInstanceOf(SqliteReadHandle);
    expect(() => handle.statement("delete from files where id = 'f1'")).toThrow(/read statements only/);
    expect(handle.statement('select count(*) as n from files')?.get()).toEqual({ n: 1 });
    handle.close();
    expect(handle.statement('select id from files')).toBeUndefined();
  });
});

// On Postgres the read is a named prepared statement on a pooled connection (`pgPooledRows`),
// which knex does not see either: query logging and plan capture rely on this event.
describe.each(databaseKinds)('a single-file read on %s', (kind) => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase(kind);
    await new StagingWriter(t.db).putFiles([{ file: htmlFile('f1', { name: 'one.html' }), permissions: [] }]);
  });
  afterEach(async () => {
    await t.destroy();
  });

  it("emits knex's query event, with the statement and its bindings", async () => {
    const seen: Array<{ sql: string; bindings: unknown }> = [];
    const listener = (q: { sql: string; bindings: unknown }): void => {
      seen.push({ sql: q.sql, bindings: q.bindings });
    };
    t.db.on('query', listener);
    try {
      expect((await new FilesRepository(t.db).getFile('f1'))?.name).toBe('one.html');
      expect((await new FilesRepository(t.db).getFileMeta('f1'))?.name).toBe('one.html');
    } finally {
      t.db.off('query', listener);
    }
    const statement = expect.stringMatching(/from [`"]files[`"] where [`"]id[`"] = (\?|\$1)/);
    expect(seen).toEqual([
      { sql: statement, bindings: ['f1', 1] },
      { sql: statement, bindings: ['f1', 1] },
    ]);
  });
});
