import fc from 'fast-check';
import { insertRows, JSON_ROWS_PER_STATEMENT, ROWS_PER_STATEMENT } from '../../src/staging/write-path/insert-rows';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

interface Member {
  group_id: string;
  member_type: string;
  member_id: string;
}

interface User {
  id: string;
  source: string;
  native_id: string;
  email: string;
  full_name: string | null;
  state: string;
  modified_at: string;
  metadata: string | null;
  content_hash: string | null;
}

const user = (n: number, over: Partial<User> = {}): User => ({
  id: `s:u${n}`,
  source: 's',
  native_id: `u${n}`,
  email: `u${n}@example.com`,
  full_name: n % 3 === 0 ? null : `User "${n}" O'Neil`,
  state: 'Active',
  modified_at: '2026-01-01T00:00:00.000Z',
  metadata: null,
  content_hash: `h${n}`,
  ...over,
});

describe.each(databaseKinds)('insertRows on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await t.destroy();
  });
  beforeEach(async () => {
    await t.db('group_members').delete();
    await t.db('groups').delete();
    await t.db('users').delete();
    await t.db('groups').insert({ id: 's:g1', source: 's', native_id: 'g1', modified_at: '2026-01-01T00:00:00.000Z' });
  });

  const usersInDb = async (): Promise<User[]> =>
    (await t.db('users').orderBy('id').select('id', 'source', 'native_id', 'email', 'full_name', 'state', 'modified_at', 'metadata', 'content_hash')) as User[];

  it('stores any number of rows exactly as given (on Postgres across statement boundaries)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: ROWS_PER_STATEMENT * 2 + 3 }), async (count) => {
        await t.db('users').delete();
        const rows = Array.from({ length: count }, (_, i) => user(i));
        await t.db.transaction((trx) => insertRows(trx, 'users', rows, ['id'], 'merge'));
        expect(await usersInDb()).toEqual([...rows].sort((a, b) => (a.id < b.id ? -1 : 1)));
      }),
      { numRuns: 12 },
    );
  });

  it('stores more rows than one Postgres statement carries, and merges a key given twice in one call as two upserts would (the last wins)', async () => {
    const rows = Array.from({ length: JSON_ROWS_PER_STATEMENT + 3 }, (_, i) => user(i));
    const twice = [user(7, { email: 'first@example.com' }), user(8), user(7, { email: 'last@example.com', content_hash: null })];
    await t.db.transaction(async (trx) => {
      await insertRows(trx, 'users', rows, ['id'], 'merge');
      await insertRows(trx, 'users', twice, ['id'], 'merge');
    });
    const expected = rows.map((r) => (r.id === 's:u7' ? user(7, { email: 'last@example.com', content_hash: null }) : r));
    expect(await usersInDb()).toEqual(expected.sort((a, b) => (a.id < b.id ? -1 : 1)));
  });

  // SQLite keeps a lone surrogate's bytes as better-sqlite3 writes them; no JSON is involved there.
  (kind === 'postgres' ? it : it.skip)('stores a lone surrogate as the driver always did (U+FFFD), and refuses a NUL, on Postgres', async () => {
    await insertRows(t.db, 'users', [user(1, { full_name: 'half \ud83d pair', metadata: '{"a":"\\u0000"}' })], ['id'], 'merge');
    const [stored] = await usersInDb();
    // The driver encodes its text parameters as UTF-8, a lone surrogate as U+FFFD; the JSON path must not refuse it instead.
    expect(stored).toEqual(user(1, { full_name: 'half \ufffd pair', metadata: '{"a":"\\u0000"}' }));
    const nul = insertRows(t.db, 'users', [user(2, { full_name: 'a\u0000b' })], ['id'], 'merge');
    await expect(nul).rejects.toMatchObject({ message: expect.stringMatching(/0x00/) });
  });

  it('merge replaces every column of a row already stored but its key; ignore keeps the stored row', async () => {
    await insertRows(t.db, 'users', [user(1), user(2)], ['id'], 'merge');
    await insertRows(t.db, 'users', [user(1, { email: 'new@example.com', state: 'Inactive', content_hash: null }), user(3)], ['id'], 'merge');
    expect(await usersInDb()).toEqual([user(1, { email: 'new@example.com', state: 'Inactive', content_hash: null }), user(2), user(3)]);

    const members: Member[] = [
      { group_id: 's:g1', member_type: 'USER', member_id: 's:u1' },
      { group_id: 's:g1', member_type: 'USER', member_id: 's:u2' },
    ];
    await insertRows(t.db, 'group_members', members, ['group_id', 'member_type', 'member_id'], 'ignore');
    // A duplicate within one statement and one already stored: both kept once, nothing fails.
    await insertRows(
      t.db,
      'group_members',
      [members[0] as Member, members[0] as Member, { group_id: 's:g1', member_type: 'GROUP', member_id: 's:g2' }],
      ['group_id', 'member_type', 'member_id'],
      'ignore',
    );
    expect(await t.db('group_members').orderBy(['member_type', 'member_id']).select('group_id', 'member_type', 'member_id')).toEqual([
      { group_id: 's:g1', member_type: 'GROUP', member_id: 's:g2' },
      ...members,
    ]);
  });

  it('refuses rows whose columns differ from the first row, or that leave a value out, before writing any row', async () => {
    const { content_hash: _dropped, ...short } = user(2);
    await expect(insertRows(t.db, 'users', [user(1), short], ['id'], 'merge')).rejects.toThrow(/rows differ in their columns/);
    await expect(insertRows(t.db, 'users', [user(1), { ...user(2), email: undefined }], ['id'], 'merge')).rejects.toThrow(/no value for email/);
    expect(await usersInDb()).toEqual([]);
  });

  it('leaves nothing behind when a statement fails inside a transaction', async () => {
    const rows = Array.from({ length: ROWS_PER_STATEMENT + 5 }, (_, i) => user(i));
    // The second statement breaks a NOT NULL column: the first statement's rows roll back with it.
    const broken = [...rows.slice(0, ROWS_PER_STATEMENT), ...rows.slice(ROWS_PER_STATEMENT).map((r) => ({ ...r, email: null }))];
    // Matched by message: under jest, better-sqlite3's errors can come from another test file's
    // realm (the native module keeps the error class it was first loaded with), failing `toThrow`.
    await expect(t.db.transaction((trx) => insertRows(trx, 'users', broken, ['id'], 'merge'))).rejects.toMatchObject({
      message: expect.stringMatching(/not.null/i),
    });
    expect(await usersInDb()).toEqual([]);
  });
});
