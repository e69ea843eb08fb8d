import fc from 'fast-check';
import { compareCodePoints } from '../../src/staging/read-path/code-point-order';
import { FilesRepository, type FileField } from '../../src/staging/repositories/files-repository';
import type { PageRequest } from '../../src/staging/read-path/page-query';
import { StagingWriter } from '../helpers/staging-writer';
import { toFileResource } from '../../src/wire/file-resource';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { at, htmlFile } from '../helpers/staging-fixtures';

/** Ids as sources produce them, astral and private-use characters included (they sort differently in UTF-16). */
const idArb = fc.string({
  unit: fc.constantFrom('a', 'B', 'z', '0', ':', ' ', '%', '"', '\\', 'é', '\uE000', '\uFFFD', '中', '\u{1F600}', '\u{10000}'),
  minLength: 1,
  maxLength: 8,
});

const pageArb: fc.Arbitrary<Omit<PageRequest<FileField>, 'after'> & { pages: number }> = fc.record({
  top: fc.integer({ min: 1, max: 12 }),
  skip: fc.constantFrom(0, 0, 3),
  orderBy: fc.record({ field: fc.constantFrom<FileField>('id', 'modified'), direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc') }),
  filters: fc.constantFrom<PageRequest<FileField>['filters']>(
    [],
    [{ field: 'status', op: 'eq', value: 'active' }],
    [{ field: 'modified', op: 'ge', value: at(20) }],
    [
      { field: 'status', op: 'eq', value: 'deleted' },
      { field: 'modified', op: 'lt', value: at(30) },
    ],
  ),
  pages: fc.integer({ min: 1, max: 6 }),
});

describe('code point order', () => {
  it('orders strings as their UTF-8 bytes do', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }),
      { numRuns: 2000 },
    );
  });
});

describe.each(databaseKinds)('pages assembled from stored JSON, on %s', (kind) => {
  let t: TestDatabase;
  let files: FilesRepository;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
    files = new FilesRepository(t.db);
  });
  afterAll(() => t.destroy());

  /** Rows: id, time, deleted, and how many two-byte characters pad the name (long JSON gets no covered copy on Postgres). */
  async function stage(rows: Array<[string, number, boolean, number?]>, unstored: readonly string[]): Promise<void> {
    await t.db('file_permissions').delete();
    await t.db('files').delete();
    const writer = new StagingWriter(t.db);
    const file = ([id, time, deleted, pad = 0]: [string, number, boolean, number?]) =>
      htmlFile(id, { modified_at: at(time), status: deleted ? 'deleted' : 'active', ...(pad > 0 ? { name: `Article ${'é'.repeat(pad)}` } : {}) });
    await writer.putFiles(rows.map((row) => ({ file: file(row), permissions: [] })));
    if (unstored.length) await t.db('files').whereIn('id', unstored).update({ wire_json: null });
  }

  it('serves, page after page, exactly the items and positions the row-by-row read does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(idArb, fc.integer({ min: 0, max: 40 }), fc.boolean(), fc.constantFrom(0, 0, 0, 0, 1050, 1100, 1150, 3000)), {
          maxLength: 30,
          selector: ([id]) => id,
        }),
        pageArb,
        async (rows, { pages, ...request }) => {
          await stage(rows, []);
          let after: string[] | undefined;
          for (let i = 0; i < pages; i += 1) {
            const page: PageRequest<FileField> = { ...request, skip: after ? 0 : request.skip, ...(after ? { after } : {}) };
            const expected = await files.listFiles(page, { includeBody: false });
            const stored = await files.listStoredFiles(page);
            expect(stored.count).toBe(expected.items.length);
            expect(JSON.parse(`[${stored.json.toString('utf8')}]`)).toEqual(expected.items.map((r) => toFileResource(r, false)));
            expect(stored?.next).toEqual(expected.next);
            after = expected.next;
            if (!after) break;
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('fails a page serving a row without stored JSON (the writers build it, a migration filled older rows), not the page before it', async () => {
    await stage(
      [
        ['a', 1, false],
        ['b', 2, false],
        ['c', 3, false],
        ['d', 4, false],
      ],
      ['c'],
    );
    const page = (top: number): PageRequest<FileField> => ({ top, skip: 0, orderBy: { field: 'id', direction: 'asc' }, filters: [] });
    expect(await files.listStoredFiles(page(1))).toMatchObject({ count: 1, next: ['a'] });
    // The row after the page is read only to know that more follow (SQLite's aggregate then gives way to the plain rows).
    expect(await files.listStoredFiles(page(2))).toMatchObject({ count: 2, next: ['b'] });
    await expect(files.listStoredFiles(page(3))).rejects.toThrow(/no stored list JSON/);
    expect(await files.listStoredFiles({ ...page(2), after: ['c'] })).toMatchObject({ count: 1 });
  });

  it('serves items whose JSON is too long for the list indexes from the table, in place (Postgres keeps no covered copy of them)', async () => {
    await stage(
      [
        ['a', 1, false],
        ['b', 2, false, 3000],
        ['c', 3, false, 1049],
        ['d', 4, false, 1051],
        ['e', 5, false],
      ],
      [],
    );
    const byId: PageRequest<FileField> = { top: 2, skip: 0, orderBy: { field: 'id', direction: 'asc' }, filters: [] };
    const byTime: PageRequest<FileField> = { top: 3, skip: 0, orderBy: { field: 'modified', direction: 'desc' }, filters: [] };
    for (const first of [byId, byTime]) {
      let page: PageRequest<FileField> | undefined = first;
      const seen: unknown[] = [];
      while (page) {
        const stored = await files.listStoredFiles(page);
        expect(stored).toBeDefined();
        seen.push(...(JSON.parse(`[${stored?.json.toString('utf8')}]`) as unknown[]));
        page = stored?.next ? { ...page, after: stored.next } : undefined;
      }
      const rows = (await t.db('files').select('id', 'wire_json')) as Array<{ id: string; wire_json: string }>;
      const expected = new Map(rows.map((r) => [r.id, JSON.parse(r.wire_json) as unknown]));
      const order = first === byId ? ['a', 'b', 'c', 'd', 'e'] : ['e', 'd', 'c', 'b', 'a'];
      expect(seen).toEqual(order.map((id) => expected.get(id)));
    }
    if (kind !== 'postgres') return;
    const copies = (await t
      .db('files')
      .orderBy('id')
      .select('id', t.db.raw('list_json is not null as covered'), t.db.raw('octet_length(wire_json) + octet_length(id) as bytes'))) as Array<{
      id: string;
      covered: boolean;
      bytes: number;
    }>;
    // Both sides of the 2,400-byte line are exercised: b is far over it, d just over, c just under.
    expect(copies.map((c) => [c.id, c.covered])).toEqual([
      ['a', true],
      ['b', false],
      ['c', true],
      ['d', false],
      ['e', true],
    ]);
    expect(copies.filter((c) => c.id === 'c' || c.id === 'd').map((c) => c.bytes)).toEqual([2397, 2401]);
  });

  it('answers an empty page with no items and no next position', async () => {
    await stage([['a', 1, false]], []);
    const stored = await files.listStoredFiles({ top: 5, skip: 0, orderBy: { field: 'id', direction: 'asc' }, filters: [], after: ['a'] });
    expect(stored).toEqual({ json: Buffer.alloc(0), count: 0 });
  });
});
