import { StagingWriter, type StagedFile } from '../helpers/staging-writer';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { at, htmlFile } from '../helpers/staging-fixtures';

/** File `n` of a load: every other one a binary with attributes and a parent, with an access list of one or two entries. */
function staged(n: number): StagedFile {
  const id = `test:f${String(n).padStart(4, '0')}`;
  const binary = n % 2 === 1;
  return {
    file: htmlFile(id, {
      modified_at: at(n % 17),
      status: n % 11 === 0 ? 'deleted' : 'active',
      ...(binary
        ? {
            mime_type: 'application/pdf',
            body_html: null,
            size: 1000 + n,
            sha256: `s${n}`,
            sha1: `h${n}`,
            blob_key: `s${n}`,
            custom_attributes: JSON.stringify({ n }),
            parent_id: 'test:p',
            parent_name: 'P',
            parent_path: '/p',
          }
        : {}),
    }),
    permissions:
      n % 3 === 0
        ? [{ type: 'GROUP', id: '*' }]
        : [
            { type: 'USER', id: `test:u${n % 5}` },
            { type: 'GROUP', id: 'test:g1' },
          ],
  };
}

const batchesOf = (files: readonly StagedFile[], size: number): StagedFile[][] =>
  Array.from({ length: Math.ceil(files.length / size) }, (_, i) => files.slice(i * size, (i + 1) * size));

describe.each(databaseKinds)('StagingWriter.loadFiles on %s', (kind) => {
  let loaded: TestDatabase;
  let put: TestDatabase;
  beforeAll(async () => {
    [loaded, put] = await Promise.all([createTestDatabase(kind), createTestDatabase(kind)]);
  });
  afterAll(() => Promise.all([loaded.destroy(), put.destroy()]));
  beforeEach(async () => {
    for (const t of [loaded, put]) {
      await t.db('file_permissions').delete();
      await t.db('files').delete();
    }
  });

  const rows = async (t: TestDatabase) => ({
    files: await t.db('files').orderBy('id').select('*'),
    permissions: await t.db('file_permissions').orderBy(['file_id', 'principal_type', 'principal_id']).select('*'),
  });
  /** The tables' index definitions, by name (what a plan can use). */
  const indexes = async (t: TestDatabase): Promise<string[]> => {
    if (t.kind === 'postgres') {
      const result = (await t.db.raw(
        `select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename in ('files', 'file_permissions') order by 1`,
      )) as { rows: Array<{ indexname: string; indexdef: string }> };
      return result.rows.map((r) => `${r.indexname}: ${r.indexdef}`);
    }
    const list = (await t.db.raw(
      `select name, sql from sqlite_master where type = 'index' and tbl_name in ('files', 'file_permissions') order by 1`,
    )) as Array<{ name: string; sql: string | null }>;
    return list.map((r) => `${r.name}: ${r.sql}`);
  };

  it('stores into an empty table exactly the rows putFiles stores, batch after batch, and keeps every index', async () => {
    const files = Array.from({ length: 230 }, (_, i) => staged((i * 37) % 230));
    const before = await indexes(loaded);
    expect(await new StagingWriter(loaded.db).loadFiles(batchesOf(files, 50))).toBe(230);
    for (const batch of batchesOf(files, 50)) await new StagingWriter(put.db).putFiles(batch);
    expect(await rows(loaded)).toEqual(await rows(put));
    expect((await rows(loaded)).files).toHaveLength(230);
    expect(await indexes(loaded)).toEqual(before);
  });

  it('adds to a table that holds rows as putFiles does: a file loaded again is replaced, access list and all', async () => {
    const first = Array.from({ length: 40 }, (_, i) => staged(i));
    const again = Array.from({ length: 30 }, (_, i) => staged(i + 20)).map((f) => ({
      ...f,
      file: { ...f.file, name: `renamed ${f.file.id}` },
      permissions: [{ type: 'GROUP' as const, id: 'test:g2' }],
    }));
    await new StagingWriter(loaded.db).putFiles(first);
    await new StagingWriter(loaded.db).loadFiles(batchesOf(again, 7));
    await new StagingWriter(put.db).putFiles(first);
    await new StagingWriter(put.db).putFiles(again);
    expect(await rows(loaded)).toEqual(await rows(put));
    const entries = async (id: string) =>
      (await loaded.db('file_permissions').where({ file_id: id }).orderBy('principal_id').select('principal_type', 'principal_id')) as unknown[];
    expect(await entries('test:f0021')).toEqual([{ principal_type: 'GROUP', principal_id: 'test:g2' }]);
    expect(await entries('test:f0019')).toEqual([
      { principal_type: 'GROUP', principal_id: 'test:g1' },
      { principal_type: 'USER', principal_id: 'test:u4' },
    ]);
  });

  it('leaves nothing behind, indexes included, when a batch fails half-way', async () => {
    const before = await indexes(loaded);
    async function* failing(): AsyncGenerator<StagedFile[]> {
      yield Array.from({ length: 20 }, (_, i) => staged(i));
      // A file without a name: the database refuses it in the second batch.
      yield [staged(20), { ...staged(21), file: { ...staged(21).file, name: null as unknown as string } }];
    }
    await expect(new StagingWriter(loaded.db).loadFiles(failing())).rejects.toMatchObject({ message: expect.stringMatching(/not.null/i) });
    expect(await rows(loaded)).toEqual({ files: [], permissions: [] });
    expect(await indexes(loaded)).toEqual(before);
    // And a load after it works.
    await new StagingWriter(loaded.db).loadFiles([[staged(1)]]);
    expect((await rows(loaded)).files.map((f: { id: string }) => f.id)).toEqual(['test:f0001']);
  });

  it('refuses a second file with the same source and native id at the row that brings it, as putFiles does', async () => {
    const clash = { ...staged(2), file: { ...staged(2).file, id: 'test:other', native_id: staged(1).file.native_id } };
    await expect(new StagingWriter(loaded.db).loadFiles([[staged(1)], [clash]])).rejects.toMatchObject({ message: expect.stringMatching(/unique|duplicate/i) });
    expect(await rows(loaded)).toEqual({ files: [], permissions: [] });
  });
});
