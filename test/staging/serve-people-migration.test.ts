import crypto from 'node:crypto';
import { FilesRepository } from '../../src/staging/repositories/files-repository';
import { IdentitiesRepository } from '../../src/staging/repositories/identities-repository';
import { personIdOf } from '../../src/staging/write-path/person-id';
import { migrateDownTo, migrateLatest } from '../../src/staging/database/run-migrations';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const MIGRATION = '20261125020000_serve_people';
const PAGE = { top: 50, skip: 0, filters: [] };
const T = '2026-04-01T00:00:00.000Z';

/** Staging written before one person, one user: a user per source account, access lists naming accounts. */
async function stageOldRows(t: TestDatabase): Promise<void> {
  const user = (source: string, native: string, email: string, state: string) => ({
    id: `${source}:${native}`,
    source,
    native_id: native,
    email,
    full_name: native,
    state,
    modified_at: T,
    metadata: null,
    seen_run: null,
    content_hash: 'x',
  });
  await t
    .db('users')
    .insert([user('wm', '1', 'Ana@Example.com', 'Active'), user('fs', 'ana', 'ana@example.com', 'Active'), user('fs', 'bo', 'bo@example.com', 'Inactive')]);
  const file = (id: string) => ({
    id,
    source: id.split(':')[0],
    native_id: id.split(':')[1],
    name: id,
    external_url: 'https://x.example',
    mime_type: 'text/html',
    status: 'active',
    modified_at: T,
    body_html: '<p/>',
  });
  await t.db('files').insert([file('wm:doc'), file('fs:doc')]);
  await t.db('file_permissions').insert([
    { file_id: 'wm:doc', principal_type: 'USER', principal_id: 'wm:1', action: 'VIEW' },
    { file_id: 'fs:doc', principal_type: 'USER', principal_id: 'fs:ana', action: 'VIEW' },
    { file_id: 'fs:doc', principal_type: 'USER', principal_id: 'fs:bo', action: 'VIEW' },
    { file_id: 'fs:doc', principal_type: 'USER', principal_id: 'fs:ghost', action: 'VIEW' },
    { file_id: 'fs:doc', principal_type: 'GROUP', principal_id: 'fs:eng', action: 'VIEW' },
  ]);
  await t.db('groups').insert({ id: 'fs:eng', source: 'fs', native_id: 'eng', name: 'Eng', modified_at: T });
  await t.db('group_members').insert([
    { group_id: 'fs:eng', member_type: 'USER', member_id: 'fs:ana' },
    { group_id: 'fs:eng', member_type: 'USER', member_id: 'wm:1' },
    { group_id: 'fs:eng', member_type: 'USER', member_id: 'fs:bo' },
  ]);
}

describe.each(databaseKinds)('the one-person-one-user migration on %s', (kind) => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase(kind);
  });
  afterEach(async () => {
    await t.destroy();
  });

  it('migrates existing accounts into one served user per person, and access lists and members onto them', async () => {
    await migrateDownTo(t.db, MIGRATION);
    await stageOldRows(t);
    await migrateLatest(t.db);

    const ana = personIdOf('wm:1', 'ana@example.com');
    const bo = personIdOf('fs:bo', 'bo@example.com');
    const identities = new IdentitiesRepository(t.db);
    const users = (await identities.listUsers({ ...PAGE, orderBy: { field: 'id', direction: 'asc' } })).items;
    expect(users.map((u) => [u.id, u.email, u.state]).sort()).toEqual(
      [
        [ana, 'ana@example.com', 'Active'], // the first account by id (fs:ana) speaks for the person
        [bo, 'bo@example.com', 'Inactive'],
      ].sort(),
    );
    const files = new FilesRepository(t.db);
    const access = async (id: string) =>
      (await files.listPermissions(id, { ...PAGE, orderBy: { field: 'type', direction: 'asc' } })).items.map((p) => `${p.principal_type} ${p.principal_id}`);
    expect(await access('wm:doc')).toEqual([`USER ${ana}`]);
    // Bo's account is inactive: his entry serves nothing; an account no source staged serves as given.
    expect(await access('fs:doc')).toEqual(['GROUP fs:eng', 'USER fs:ghost', `USER ${ana}`].sort((a, b) => (a < b ? -1 : 1)));
    const members = (await identities.listMembers('fs:eng', { ...PAGE, orderBy: { field: 'type', direction: 'asc' } })).items;
    expect(members.map((m) => `${m.member_type} ${m.member_id}`)).toEqual([`USER ${ana}`]);
  });

  it('writes each person row as the gateway did when it shipped (its own frozen copy of the person id and row)', async () => {
    await migrateDownTo(t.db, MIGRATION);
    await stageOldRows(t);
    const user = (native: string, email: string, fullName: string | null, state: string, metadata: string | null) => ({
      id: `wm:${native}`,
      source: 'wm',
      native_id: native,
      email,
      full_name: fullName,
      state,
      modified_at: T,
      metadata,
      seen_run: null,
      content_hash: 'x',
    });
    // Full-width letters and a German sharp s fold onto plain ones; an account without an email is a person of its own.
    await t
      .db('users')
      .insert([
        user('2', ' ＣＥ@Example.com ', null, 'Inactive', '{"a":1}'),
        user('3', 'ce@example.com', 'Ce', 'Inactive', null),
        user('4', '', 'Nobody', 'Active', null),
        user('5', 'STRAẞE@example.com', 'St', 'Active', null),
      ]);
    const before = new Date().toISOString();
    await migrateLatest(t.db);

    const id = (basis: string) => `person-${crypto.hash('sha256', basis, 'hex').slice(0, 32)}`;
    const hash = (served: object) => crypto.hash('sha256', JSON.stringify(served), 'hex');
    const people = (await t.db('people').orderBy('id').select('*')) as Array<Record<string, string | null>>;
    const at = people[0]!.modified_at!;
    expect(at >= before && people.every((p) => p.modified_at === at)).toBe(true);
    const served = (email: string, full_name: string | null, state: string, metadata: string | null) => ({ email, full_name, state, metadata });
    const expected = [
      [id('email\u0000ana@example.com'), served('ana@example.com', 'ana', 'Active', null)],
      [id('email\u0000bo@example.com'), served('bo@example.com', 'bo', 'Inactive', null)],
      // Both inactive: the first by id speaks (trimmed, NFKC, case kept), the name comes from the next that has one.
      [id('email\u0000ce@example.com'), served('CE@Example.com', 'Ce', 'Inactive', '{"a":1}')],
      [id('account\u0000wm:4'), served('', 'Nobody', 'Active', null)],
      [id('email\u0000strasse@example.com'), served('STRAẞE@example.com', 'St', 'Active', null)],
    ] as const;
    expect(people).toEqual(expected.map(([pid, s]) => ({ id: pid, ...s, modified_at: at, content_hash: hash(s) })).sort((a, b) => (a.id < b.id ? -1 : 1)));
    const accounts = (await t.db('users').orderBy('id').select('id', 'person_id')) as Array<{ id: string; person_id: string }>;
    expect(Object.fromEntries(accounts.map((a) => [a.id, a.person_id]))).toEqual({
      'fs:ana': expected[0][0],
      'wm:1': expected[0][0],
      'fs:bo': expected[1][0],
      'wm:2': expected[2][0],
      'wm:3': expected[2][0],
      'wm:4': expected[3][0],
      'wm:5': expected[4][0],
    });
  });

  it('rolls back to the schema before it', async () => {
    await migrateDownTo(t.db, MIGRATION);
    expect(await t.db.schema.hasTable('people')).toBe(false);
    expect(await t.db.schema.hasColumn('file_permissions', 'served_id')).toBe(false);
    await migrateLatest(t.db);
    expect(await t.db.schema.hasColumn('users', 'person_id')).toBe(true);
  });
});
