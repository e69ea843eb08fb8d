import { EVERYONE } from '../../../src/adapters/adapter';
import { resolveSqlMapping } from '../../../src/adapters/sql';
import { accessByDocument, attributesByOwner, documentRecord, groupRecords, rolesByUser, SqlRowError, userRecord } from '../../../src/adapters/sql/sql-records';
import { attributeValue, flag, pick, rowAttributes } from '../../../src/adapters/sql/sql-values';
import { collapseChanges, compareScalars, shiftBack, shiftTimestampText, startBound } from '../../../src/adapters/sql/sql-watermark';
import { fixtureMapping } from '../../helpers/sql-fixture';

/** Pure mapping: rows as drivers return them (plain objects) → records. No database. */
const { mapping, template } = resolveSqlMapping(fixtureMapping());
const docs = mapping.documents;
const users = mapping.users!;
const row = {
  id: 7,
  title: 'Q3 <plan> & "budget"',
  body: '<p>Hello</p>',
  kind: 'policy',
  space: 'board',
  department: 'finance',
  level: '3',
  tags: 'alpha, beta,,gamma ',
  author: 'ana@example.com',
  updated_at: new Date('2026-04-01T08:00:00.123Z'),
};
const directory = { userIds: new Set(['1', '2']), groupIds: new Set(['finance-team']) };

describe('document rows', () => {
  it('become HTML files: escaped title, the body as written, a percent-encoded URL, policy inputs typed as mapped', () => {
    const file = documentRecord(row, docs, template, [EVERYONE]);
    expect(file).toMatchObject({
      nativeId: '7',
      name: 'Q3 <plan> & "budget"',
      externalUrl: 'https://intranet.example.com/docs/7?title=Q3%20%3Cplan%3E%20%26%20%22budget%22',
      mimeType: 'text/html',
      access: [EVERYONE],
      createdBy: 'ana@example.com',
      customAttributes: { kind: 'policy' },
      attributes: { kind: 'policy', space: 'board', department: 'finance', level: 3, tags: ['alpha', 'beta', 'gamma'] },
    });
    const html = 'html' in file.content ? file.content.html : '';
    expect(html).toContain('<title>Q3 &lt;plan&gt; &amp; &quot;budget&quot;</title>');
    expect(html).toContain('<p>Hello</p>');
    expect(documentRecord({ ...row }, docs, template, [])).toEqual(documentRecord(row, docs, template, [])); // same row, same bytes
  });

  it('renders plain-text bodies as escaped paragraphs, and an untitled row by its id', () => {
    const textDocs = { ...docs, bodyFormat: 'text' as const };
    const file = documentRecord({ ...row, title: '  ', body: 'a < b\nline two\n\nsecond' }, textDocs, template, []);
    expect(file.name).toBe('Untitled 7');
    expect(file.content).toEqual({ kind: 'html', html: expect.stringContaining('<p>a &lt; b<br>line two</p>\n<p>second</p>') });
  });

  it('refuses a row without an id or with a URL that is not absolute http(s)', () => {
    expect(() => documentRecord({ ...row, id: null }, docs, template, [])).toThrow(SqlRowError);
    const byColumn = { ...docs, url: 'link', urlTemplate: undefined };
    expect(() => documentRecord({ ...row, link: '/relative' }, byColumn, template, [])).toThrow('document 7: URL "/relative" is not an absolute http(s) URL');
    expect(() => documentRecord({ ...row, link: 'javascript:alert(1)' }, byColumn, template, [])).toThrow(SqlRowError);
    expect(documentRecord({ ...row, link: 'https://x.example.com/a' }, byColumn, template, []).externalUrl).toBe('https://x.example.com/a');
  });

  it('finds columns whatever case the database folded them to', () => {
    expect(pick({ title: 'x' }, 'Title')).toBe('x');
    expect(pick({ Title: 'y' }, 'Title')).toBe('y');
  });
});

describe('access rows', () => {
  const access = docs.access!;
  it('group by document: users and groups the directory knows, EVERYONE once; unknown principals dropped', () => {
    const rows = [
      { document_id: 1, principal_type: 'user', principal_id: 1 },
      { document_id: 1, principal_type: 'USER', principal_id: '1' },
      { document_id: 1, principal_type: 'GROUP', principal_id: 'finance-team' },
      { document_id: 1, principal_type: 'USER', principal_id: '999' },
      { document_id: 1, principal_type: 'GROUP', principal_id: 'ghosts' },
      { document_id: 2, principal_type: 'everyone', principal_id: null },
      { document_id: 2, principal_type: 'EVERYONE', principal_id: null },
    ];
    const out = accessByDocument(rows, access, directory);
    expect(out.get('1')).toEqual([
      { type: 'USER', nativeId: '1' },
      { type: 'GROUP', nativeId: 'finance-team' },
    ]);
    expect(out.get('2')).toEqual([EVERYONE]);
  });

  it('make their document fail on a type that is none of USER, GROUP, EVERYONE (never a guess), with the rows it could resolve as what the source grants at most', () => {
    const out = accessByDocument(
      [
        { document_id: 3, principal_type: 'ROLE', principal_id: 'x' },
        { document_id: 3, principal_type: 'USER', principal_id: '1' },
        { document_id: 3, principal_type: 'USER', principal_id: '999' },
      ],
      access,
      directory,
    );
    const failed = out.get('3');
    expect(failed).toBeInstanceOf(SqlRowError);
    expect(failed).toMatchObject({ message: expect.stringContaining('access type "ROLE"'), accessAtMost: [{ type: 'USER', nativeId: '1' }] });
  });

  it('take the default type when the mapping names no type column', () => {
    const out = accessByDocument([{ document_id: 4, principal_id: 'finance-team' }], { ...access, type: undefined, defaultType: 'GROUP' }, directory);
    expect(out.get('4')).toEqual([{ type: 'GROUP', nativeId: 'finance-team' }]);
  });
});

describe('users, roles and groups', () => {
  it('users carry roles (sorted, unique), attributes, and active only when the flag says so', () => {
    const roles = rolesByUser(
      [
        { person_id: 1, role: 'viewer' },
        { person_id: 1, role: 'editor' },
        { person_id: 1, role: 'viewer' },
        { person_id: 2, role: ' ' },
      ],
      mapping.roles!,
    );
    expect(roles).toEqual(new Map([['1', ['editor', 'viewer']]]));
    const person = { id: 1, email: ' ana@example.com ', full_name: 'Ana', is_active: 1, department: 'finance', clearance: '2' };
    expect(userRecord(person, users, roles.get('1'))).toEqual({
      nativeId: '1',
      email: 'ana@example.com',
      fullName: 'Ana',
      active: true,
      attributes: { department: 'finance', clearance: 2 },
      roles: ['editor', 'viewer'],
    });
    for (const [value, active] of [
      [0, false],
      ['f', false],
      [null, false],
      ['maybe', false],
      [true, true],
      ['yes', true],
      ['t', true],
    ] as const) {
      expect({ value, active: userRecord({ ...person, is_active: value }, users, []).active }).toEqual({ value, active });
    }
    expect(() => userRecord({ ...person, email: 'not-an-email' }, users, [])).toThrow('user 1: "not-an-email" is not an email address');
  });

  it('groups have direct members only: users the directory knows and other groups, never themselves', () => {
    const groups = groupRecords(
      [{ id: 'a', name: 'A' }, { id: 'b' }, { id: 'a', name: 'dup' }],
      [
        { team_id: 'a', member_id: '1', member_type: 'USER' },
        { team_id: 'a', member_id: '1', member_type: 'user' },
        { team_id: 'a', member_id: 'b', member_type: 'GROUP' },
        { team_id: 'a', member_id: 'a', member_type: 'GROUP' },
        { team_id: 'a', member_id: '42', member_type: 'USER' },
        { team_id: 'a', member_id: 'zz', member_type: 'GROUP' },
        { team_id: 'nope', member_id: '1', member_type: 'USER' },
        { team_id: 'b', member_id: '2', member_type: 'ROBOT' },
      ],
      mapping.groups!,
      directory.userIds,
    );
    expect(groups).toEqual([
      {
        nativeId: 'a',
        name: 'A',
        members: [
          { type: 'GROUP', nativeId: 'b' },
          { type: 'USER', nativeId: '1' },
        ],
      },
      { nativeId: 'b', members: [] },
    ]);
  });
});

describe('attribute rows (a key-value table)', () => {
  it('group by owner: one value as its type reads it, several values (or type list) as a sorted list; columns win over rows', () => {
    const rows = [
      { owner: 1, k: 'project', v: 'zeta' },
      { owner: 1, k: 'project', v: 'alpha' },
      { owner: 1, k: 'clearance', v: '2' },
      { owner: 1, k: 'department', v: 'from-rows' },
      { owner: 2, k: 'tags', v: 'solo' },
      { owner: 2, k: 'note', v: null },
      { owner: null, k: 'x', v: 'y' },
    ];
    const byOwner = attributesByOwner(rows, { owner: 'owner', name: 'k', value: 'v', types: { clearance: 'number', tags: 'list' } });
    expect(byOwner.get('1')).toEqual({ project: ['alpha', 'zeta'], clearance: 2, department: 'from-rows' });
    expect(byOwner.get('2')).toEqual({ tags: ['solo'] });
    const person = { id: 1, email: 'ana@example.com', is_active: true, department: 'finance', clearance: null };
    expect(userRecord(person, users, [], byOwner.get('1')).attributes).toEqual({ project: ['alpha', 'zeta'], clearance: 2, department: 'finance' });
    expect(documentRecord(row, docs, template, [], { project: ['x'], level: 9 }).attributes).toMatchObject({ project: ['x'], level: 3 });
  });
});

describe("names that are Object.prototype's own", () => {
  it('stay plain attributes: __proto__ and constructor from a mapping or a key-value row are own properties', () => {
    const byOwner = attributesByOwner(
      [
        { owner: 1, k: '__proto__', v: 'x' },
        { owner: 1, k: 'constructor', v: 'y' },
      ],
      { owner: 'owner', name: 'k', value: 'v', types: {} },
    );
    const attrs = byOwner.get('1') ?? {};
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
    expect(Object.keys(attrs).sort()).toEqual(['__proto__', 'constructor']);
    const fromColumns = rowAttributes({ a: 'z' }, JSON.parse('{"__proto__": {"column": "a", "type": "auto", "separator": ","}}'));
    expect(Object.keys(fromColumns)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(fromColumns, '__proto__')?.value).toBe('z');
    // And they survive the merge of row and column attributes.
    const person = { id: 1, email: 'ana@example.com', is_active: true };
    expect(Object.keys(userRecord(person, users, [], attrs).attributes ?? {}).sort()).toEqual(['__proto__', 'constructor']);
  });
});

describe('attribute values', () => {
  it('convert as their type says; what does not convert is absent', () => {
    const spec = (type: 'auto' | 'string' | 'number' | 'boolean' | 'list') => ({ column: 'c', type, separator: ';' });
    expect(attributeValue('12.5', spec('number'))).toBe(12.5);
    expect(attributeValue('twelve', spec('number'))).toBeUndefined();
    expect(attributeValue(0, spec('boolean'))).toBe(false);
    expect(attributeValue('a; b;', spec('list'))).toEqual(['a', 'b']);
    expect(attributeValue('["x","y"]', spec('list'))).toEqual(['x', 'y']);
    expect(attributeValue(['x', 1], spec('list'))).toEqual(['x', '1']);
    expect(attributeValue(new Date('2026-01-02T03:04:05Z'), spec('auto'))).toBe('2026-01-02T03:04:05.000Z');
    expect(attributeValue(7, spec('string'))).toBe('7');
    expect(attributeValue(null, spec('auto'))).toBeUndefined();
    expect(rowAttributes({ a: 1, b: null }, { a: { column: 'a', type: 'auto', separator: ',' }, b: { column: 'b', type: 'auto', separator: ',' } })).toEqual({
      a: 1,
    });
    expect([flag(Buffer.from([1])), flag('OFF'), flag({})]).toEqual([true, false, undefined]);
  });
});

describe('watermarks', () => {
  it('shift timestamps written as text in their own format (separator, fraction, zone kept)', () => {
    expect(shiftTimestampText('2026-05-01 10:00:30.123456+00', 60)).toBe('2026-05-01 09:59:30.123456+00');
    expect(shiftTimestampText('2026-01-01T00:00:10.000Z', 60)).toBe('2025-12-31T23:59:10.000Z');
    expect(shiftTimestampText('2026-03-01 00:00:00', 1)).toBe('2026-02-28 23:59:59');
    // A date-only column: whole days back, so the last day is read again whole.
    expect(shiftTimestampText('2026-03-01', 60)).toBe('2026-02-28');
    expect(startBound({ value: '2026-03-01', id: 9 }, undefined)).toEqual({ value: '2026-02-28', inclusive: true });
    expect(shiftBack(100, 5)).toBe(95);
    expect(shiftBack('100', 5)).toBe('95');
    expect(shiftBack('abc', 5)).toBe('abc');
  });

  it('start strictly after (value, id) for numbers without overlap, inclusive overlap behind with it; timestamps always inclusive, 60 s behind by default', () => {
    expect(startBound(null, undefined)).toBeUndefined();
    expect(startBound({ value: 42, id: 3 }, undefined)).toEqual({ value: 42, id: 3 });
    expect(startBound({ value: 42, id: 3 }, 2)).toEqual({ value: 40, inclusive: true });
    expect(startBound({ value: '2026-05-01 10:00:00', id: 3 }, undefined)).toEqual({ value: '2026-05-01 09:59:00', inclusive: true });
    // A timestamp does not identify a write: even without overlap, rows at the stored value are read again.
    expect(startBound({ value: '2026-05-01 10:00:00', id: 3 }, 0)).toEqual({ value: '2026-05-01 10:00:00', inclusive: true });
  });

  it('compare positions as their column orders them: numbers numerically, text as text', () => {
    expect(compareScalars('10', '9')).toBeGreaterThan(0);
    expect(compareScalars(10, '9')).toBeGreaterThan(0);
    expect(compareScalars('2026-05-01 10:00:00', '2026-05-01 09:59:59')).toBeGreaterThan(0);
    expect(compareScalars('a', 'a')).toBe(0);
  });

  it("collapse a page of changes to each id's last operation", () => {
    const page = [
      { id: 'a', deleted: false },
      { id: 'b', deleted: true },
      { id: 'a', deleted: true },
      { id: 'b', deleted: false },
      { id: 'c', deleted: false },
    ];
    expect(collapseChanges(page)).toEqual({ upserts: ['b', 'c'], deletes: ['a'] });
  });
});
