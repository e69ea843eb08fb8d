import fc from 'fast-check';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { at, htmlFile } from '../helpers/staging-fixtures';

/** Opaque ids as sources produce them: any Unicode, separators, quotes, percent signs. */
const idArb = fc.string({
  unit: fc.constantFrom('a', 'B', 'z', '0', '9', ':', '/', ' ', '%', "'", '-', 'é', '☕', '中', '\u{1F600}'),
  minLength: 1,
  maxLength: 12,
});

type Mutation = { kind: 'insert'; id: string; t: number } | { kind: 'touch'; index: number; t: number } | { kind: 'delete'; index: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), id: idArb, t: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ kind: fc.constant('touch' as const), index: fc.nat(), t: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat() }),
);

describe.each(databaseKinds)('paging while a sync writes, on %s', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(kind, { pageSizeMax: 50 });
  });
  afterAll(() => gw.close());

  it('returns every item that is present and unchanged for the whole crawl exactly once, whatever the page size, order and writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(idArb, fc.integer({ min: 0, max: 200 })), { minLength: 0, maxLength: 40, selector: ([id]) => id }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('', 'last_modified_datetime', 'last_modified_datetime desc', 'id desc'),
        fc.array(fc.array(mutationArb, { maxLength: 3 }), { maxLength: 15 }),
        async (initial, top, orderby, writesBetweenPages) => {
          const db = gw.database.db;
          await db('file_permissions').delete();
          await db('files').delete();
          await gw.writer.putFiles(initial.map(([id, t]) => ({ file: htmlFile(id, { modified_at: at(t) }), permissions: [] })));

          const ids = initial.map(([id]) => id);
          const changed = new Set<string>(); // touched, deleted or inserted during the crawl
          const seen: string[] = [];
          let next: string | undefined = `/v1/files?$top=${top}${orderby ? `&$orderby=${encodeURIComponent(orderby)}` : ''}`;
          let round = 0;
          while (next) {
            const res = await gw.get(next.replace(gw.url, ''), AUTH);
            expect(res.status).toBe(200);
            seen.push(...res.body.value.map((f: { id: string }) => f.id));
            next = res.body['@odata.nextLink'];
            for (const m of writesBetweenPages[round++] ?? []) {
              if (m.kind === 'insert') {
                if (ids.includes(m.id)) continue;
                ids.push(m.id);
                changed.add(m.id);
                await gw.writer.putFiles([{ file: htmlFile(m.id, { modified_at: at(m.t) }), permissions: [] }]);
              } else if (ids.length > 0) {
                const id = ids[m.index % ids.length] as string;
                changed.add(id);
                // As the sync engine does: a changed row is written again, its list JSON with it.
                if (m.kind === 'touch') await gw.writer.putFiles([{ file: htmlFile(id, { modified_at: at(m.t), name: `edited ${m.t}` }), permissions: [] }]);
                else await db('files').where({ id }).delete();
              }
            }
          }

          const stable = initial.map(([id]) => id).filter((id) => !changed.has(id));
          for (const id of stable) expect(seen.filter((s) => s === id)).toHaveLength(1);
          // Ordered by id, nothing can move, so nothing at all may repeat.
          if (!orderby.startsWith('last_modified')) expect(new Set(seen).size).toBe(seen.length);
        },
      ),
      { numRuns: kind === 'sqlite' ? 60 : 30 },
    );
  });
});
