import fc from 'fast-check';
import { fastFilter } from '../../../src/mocks/platform/api/fast-filter';
import { compileWithParser } from '../../../src/mocks/platform/api/odata-query';

const FIELDS = new Set(['id', 'cited', 'user_id', 'detail/external_resource_id', 'detail/source']);
const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;
const value = fc.oneof(fc.constantFrom('a', "o'k", ' and ', ' or ', '(x)', "''", 'true', '12', ''), fc.string({ maxLength: 6 }));
const field = fc.constantFrom('detail/external_resource_id', 'user_id', 'detail/source', 'id');

describe("the Data API's fast filter path", () => {
  it('answers exactly as the OData parser does wherever it answers at all, and takes the bulk shapes', () => {
    const record = fc.record({
      id: value,
      cited: fc.oneof(fc.boolean(), fc.constant('true')),
      user_id: fc.oneof(value, fc.constant(null), fc.integer({ min: 0, max: 20 })),
      detail: fc.record({ external_resource_id: value, source: value }),
    });
    const orList = fc.tuple(field, fc.array(value, { minLength: 1, maxLength: 5 }), fc.boolean()).map(([f, vs, paren]) => {
      const list = vs.map((v) => `${f} eq ${quote(v)}`).join(' or ');
      return paren || vs.length > 1 ? `(${list})` : list;
    });
    const conjunct = fc.oneof(
      orList,
      fc.boolean().map((b) => `cited eq ${b}`),
      fc.constantFrom("not (id eq 'a')", "id ne 'a'", "contains(id,'a')", "cited eq 'true'", 'user_id eq 3'),
    );
    const filter = fc.oneof(
      fc.array(conjunct, { minLength: 1, maxLength: 3 }).map((cs) => cs.join(' and ')),
      orList.map((l) => l.replace(/^\(|\)$/g, '')),
    );
    let fastTaken = 0;
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), filter, (records, text) => {
        const fast = fastFilter(text, FIELDS);
        if (!fast) return;
        fastTaken++;
        const slow = compileWithParser(text, FIELDS);
        for (const r of records) expect([text, r, fast.predicate(r)]).toEqual([text, r, slow.predicate(r)]);
        if (slow.keys && fast.keys) expect(fast.keys).toEqual(slow.keys);
      }),
      { numRuns: 400 },
    );
    expect(fastTaken).toBeGreaterThan(100);
  });

  it('leaves unbalanced or unknown input to the parser (which refuses it)', () => {
    for (const text of ["id eq 'a' or", "(id eq 'a'", "id eq 'a')", "nope eq 'a'", "id eq 'a", "id eq 'a' and", ''])
      expect(fastFilter(text, FIELDS)).toBeUndefined();
  });
});
