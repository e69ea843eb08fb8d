import fc from 'fast-check';
import { FilesRepository, type PermissionField } from '../../src/staging/repositories/files-repository';
import type { PageRequest } from '../../src/staging/read-path/page-query';
import { queryPage } from '../../src/staging/read-path/query-page';
import { StagingWriter } from '../helpers/staging-writer';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { at, htmlFile } from '../helpers/staging-fixtures';

const idArb = fc.string({ unit: fc.constantFrom('a', 'B', 'z', '0', ':', '%', '"', 'é', '\u{1F600}'), minLength: 1, maxLength: 5 });

const pageArb: fc.Arbitrary<Omit<PageRequest<PermissionField>, 'after'> & { pages: number }> = fc.record({
  top: fc.integer({ min: 1, max: 6 }),
  skip: fc.constantFrom(0, 0, 2),
  orderBy: fc.record({ field: fc.constantFrom<PermissionField>('id', 'type'), direction: fc.constantFrom<'asc' | 'desc'>('asc', 'desc') }),
  filters: fc.constantFrom<PageRequest<PermissionField>['filters']>(
    [],
    [{ field: 'type', op: 'eq', value: 'USER' }],
    [{ field: 'id', op: 'gt', value: 'a' }],
    [
      { field: 'type', op: 'eq', value: 'GROUP' },
      { field: 'id', op: 'le', value: 'z' },
    ],
  ),
  pages: fc.integer({ min: 1, max: 5 }),
});

const COLUMNS: Readonly<Record<PermissionField, string>> = { type: 'principal_type', id: 'served_id' };

describe.each(databaseKinds)('access entry pages from statements built once per shape, on %s', (kind) => {
  let t: TestDatabase;
  let files: FilesRepository;
  beforeAll(async () => {
    t = await createTestDatabase(kind);
    files = new FilesRepository(t.db);
  });
  afterAll(() => t.destroy());

  it('serve, page after page, the rows and positions a query built for each page serves', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.constantFrom<'USER' | 'GROUP'>('USER', 'GROUP'), idArb), { maxLength: 14, selector: ([type, id]) => `${type} ${id}` }),
        pageArb,
        async (entries, { pages, ...request }) => {
          await t.db('file_permissions').delete();
          await t.db('files').delete();
          const permissions = entries.map(([type, id]) => ({ type, id }));
          await new StagingWriter(t.db).putFiles([{ file: htmlFile('f', { modified_at: at(1) }), permissions }]);
          let after: string[] | undefined;
          for (let i = 0; i < pages; i += 1) {
            const page: PageRequest<PermissionField> = { ...request, skip: after ? 0 : request.skip, ...(after ? { after } : {}) };
            const reference = await queryPage<{ principal_type: string; served_id: string }, PermissionField>(
              t.db('file_permissions').distinct('principal_type', 'served_id').where({ file_id: 'f' }).whereNotNull('served_id'),
              page,
              COLUMNS,
              'id',
            );
            const served = await files.listPermissions('f', page);
            expect(served.items.map((r) => [r.principal_type, r.principal_id])).toEqual(reference.items.map((r) => [r.principal_type, r.served_id]));
            expect(served.next).toEqual(reference.next);
            after = served.next;
            if (!after) break;
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
