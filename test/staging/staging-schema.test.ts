import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { seedDemo } from '../../src/demo/seed-demo';
import { isPostgres } from '../../src/staging/database/create-db';
import { migrateLatest, migrateRollbackAll } from '../../src/staging/database/run-migrations';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { at, htmlFile, user } from '../helpers/staging-fixtures';
import { resolveAccounts } from '../../src/staging/write-path/people';
import { StagingWriter } from '../helpers/staging-writer';
import { FilesRepository } from '../../src/staging/repositories/files-repository';

/** The plan of a page query, as text (SQLite's EXPLAIN QUERY PLAN or Postgres's EXPLAIN). */
async function plan(t: TestDatabase, sql: string, bindings: string[]): Promise<string> {
  if (isPostgres(t.db)) {
    // Tiny test tables make a scan plus a sort cheapest; discourage both, so the plan shows whether
    // an index can deliver the rows in page order (if none can, a Sort still appears).
    return t.db.transaction(async (trx) => {
      for (const setting of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await trx.raw(`set local ${setting} = off`);
      const rows = (await trx.raw(`explain ${sql}`, bindings)).rows as Array<{ 'QUERY PLAN': string }>;
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  }
  const rows = (await t.db.raw(`explain query plan ${sql}`, bindings)) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join('\n');
}

/**
 * VACUUMs `table` until its visibility map covers every page. A vacuum marks a page all-visible
 * only once no open transaction could still not see its rows, and other suites share this
 * database: it may take a few tries while their transactions end.
 */
async function vacuumUntilAllVisible(t: TestDatabase, table: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await t.db.raw('vacuum analyze ??', [table]);
    const { rows } = (await t.db.raw(`select relpages, relallvisible from pg_class where oid = ?::regclass`, [table])) as {
      rows: Array<{ relpages: number; relallvisible: number }>;
    };
    if (rows[0] && rows[0].relallvisible >= rows[0].relpages) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${table}: the visibility map stayed incomplete after 100 vacuums (a transaction held open for 10 s?)`);
}

describe.each(databaseKinds)('staging schema on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
    await new StagingWriter(t.db).putFiles(Array.from({ length: 50 }, (_, i) => ({ file: htmlFile(`f${i}`, { modified_at: at(i) }), permissions: [] })));
  });
  afterAll(() => t.destroy());

  it('migrates down and up again cleanly, and a second migrate is a no-op', async () => {
    await migrateRollbackAll(t.db);
    expect(await t.db.schema.hasTable('files')).toBe(false);
    await migrateLatest(t.db);
    expect(await migrateLatest(t.db)).toEqual([]);
    for (const table of ['files', 'file_permissions', 'users', 'groups', 'group_members', 'sync_runs', 'sync_checkpoints', 'gateway_settings']) {
      expect(await t.db.schema.hasTable(table)).toBe(true);
    }
    await new StagingWriter(t.db).putFiles(Array.from({ length: 50 }, (_, i) => ({ file: htmlFile(`f${i}`, { modified_at: at(i) }), permissions: [] })));
  });

  it.each([
    ['by id', 'select id from files where id > ? order by id limit 101', ['f10'], /files_pkey|files_list_id|sqlite_autoindex_files|PRIMARY KEY/i],
    [
      'by time',
      'select id from files where (modified_at, id) > (?, ?) order by modified_at, id limit 101',
      [at(10), 'f10'],
      /files_modified_id|files_list_modified/,
    ],
    ['active by id', "select id from files where status = 'active' and id > ? order by id limit 101", ['f10'], /files_status_id/],
  ])('seeks pages %s through an index (no scan, no sort)', async (_name, sql, bindings, index) => {
    const text = await plan(t, sql, bindings);
    expect(text).toMatch(index);
    expect(text).not.toMatch(/USE TEMP B-TREE|^\s*Sort|Seq Scan|SCAN files\b(?! USING)/m);
  });

  it.each([
    ['by id', { field: 'id', direction: 'asc' }, ['f10'], /COVERING INDEX files_list_id/, /Index Only Scan using files_list_id/],
    [
      'by time',
      { field: 'modified', direction: 'desc' },
      [at(10), 'f10'],
      /COVERING INDEX files_list_modified/,
      /Index Only Scan Backward using files_list_modified/,
    ],
  ] as const)('assembles stored list pages %s from one covering index scan', async (_name, orderBy, after, sqliteIndex, pgIndex) => {
    // Postgres picks an index-only scan once the table's visibility map says it pays (as after a
    // bulk load, which vacuums, or autovacuum); these 50 rows were written without one.
    if (kind === 'postgres') await vacuumUntilAllVisible(t, 'files');
    const seen: Array<{ sql: string; bindings: string[] }> = [];
    const listener = (q: { sql: string; bindings: string[] }): void => {
      seen.push(q);
    };
    t.db.on('query', listener);
    try {
      expect(await new FilesRepository(t.db).listStoredFiles({ top: 10, skip: 0, orderBy, filters: [], after: [...after] })).toBeDefined();
    } finally {
      t.db.off('query', listener);
    }
    expect(seen).toHaveLength(1);
    // Postgres reports the native text ($1, $2, …); `plan` binds knex's `?` placeholders.
    const text = await plan(t, seen[0]!.sql.replace(/\$\d+/g, '?'), seen[0]!.bindings);
    expect(text).toMatch(kind === 'sqlite' ? sqliteIndex : pgIndex);
    expect(text).not.toMatch(/USE TEMP B-TREE|^\s*Sort|Seq Scan|SCAN files\b(?! USING)/m);
  });

  it("re-points an account's access entries through the index of user entries only", async () => {
    const writer = new StagingWriter(t.db);
    await writer.putUsers([user('acct-1'), user('acct-2')]);
    const access = [
      { type: 'USER' as const, id: 'acct-1' },
      { type: 'USER' as const, id: 'acct-2' },
      { type: 'GROUP' as const, id: 'acct-1' },
    ];
    await writer.putFiles([{ file: htmlFile('repointed', { modified_at: at(1) }), permissions: access }]);
    await t.db('users').where({ id: 'acct-1' }).update({ state: 'Inactive' });
    const seen: Array<{ sql: string; bindings: string[] }> = [];
    const listener = (q: { sql: string; bindings: string[] }): void => {
      if (/file_permissions/.test(q.sql)) seen.push(q);
    };
    t.db.on('query', listener);
    try {
      await t.db.transaction((trx) => resolveAccounts(trx, ['acct-1'], [], at(70)));
    } finally {
      t.db.off('query', listener);
    }
    // The inactive account's user entry serves nothing; a group entry with the same id is no user's.
    const served = await t
      .db('file_permissions')
      .where({ file_id: 'repointed' })
      .orderBy(['principal_type', 'principal_id'])
      .select('principal_type', 'principal_id', 'served_id');
    expect(served).toEqual([
      { principal_type: 'GROUP', principal_id: 'acct-1', served_id: 'acct-1' },
      { principal_type: 'USER', principal_id: 'acct-1', served_id: null },
      { principal_type: 'USER', principal_id: 'acct-2', served_id: 'acct-2' },
    ]);
    expect(seen.map((q) => q.sql.split(' ')[0])).toEqual(['select', 'update']);
    for (const q of seen) {
      const text = await plan(t, q.sql.replace(/\$\d+/g, '?'), q.bindings);
      expect(text).toMatch(/file_permissions_user/);
      expect(text).not.toMatch(/Seq Scan|SCAN file_permissions\b(?! USING)/m);
    }
  });

  it('seeds the demo corpus through the filesystem adapter, and seeding again changes nothing (same last_modified_datetime)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-seed-'));
    try {
      const blobs = new FsBlobStore(dir);
      const first = await seedDemo(t.db, blobs, new Date('2026-01-01T00:00:00Z'));
      expect(first.files).toBeGreaterThanOrEqual(10);
      expect(first).toEqual({
        files: Number((await t.db('files').where({ source: 'demo', status: 'active' }).count({ n: '*' }))[0]?.n),
        users: 8,
        groups: 5,
      });
      const snapshot = async () => ({
        files: await t
          .db('files')
          .where({ source: 'demo' })
          .orderBy('id')
          .select('id', 'native_id', 'sha256', 'status', 'mime_type', 'modified_at', 'permissions_modified_at', 'wire_json'),
        permissions: await t.db('file_permissions').where('file_id', 'like', 'demo:%').orderBy(['file_id', 'principal_type', 'principal_id']),
        users: await t.db('users').where({ source: 'demo' }).orderBy('id').select('id', 'state', 'modified_at'),
        groups: await t.db('groups').where({ source: 'demo' }).orderBy('id').select('id', 'modified_at'),
        members: await t.db('group_members').orderBy(['group_id', 'member_type', 'member_id']),
      });
      const before = await snapshot();
      expect(
        before.files.every(
          (f: { id: string; native_id: string; modified_at: string }) => f.id === `demo:${f.native_id}` && f.modified_at === '2026-01-01T00:00:00.000Z',
        ),
      ).toBe(true);
      expect(before.files.map((f: { id: string }) => f.id)).toContain('demo:hr/salary-bands-2025.docx');
      expect(await seedDemo(t.db, blobs, { now: new Date('2026-01-02T00:00:00Z') })).toEqual(first);
      expect(await snapshot()).toEqual(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
