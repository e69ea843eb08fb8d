import fc from 'fast-check';
import { EqualityIndex } from '../../../src/mocks/platform/api/equality-index';
import { equalityKeys, parseFilter } from '../../../src/mocks/platform/api/odata-query';

const FIELDS = new Set(['id', 'cited', 'user_id', 'detail/external_resource_id']);
const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;
const value = fc.constantFrom('a', 'b', "o'k", 'c d', '12', 'true', '');

describe("the Data API's equality index", () => {
  it('answers exactly what a full scan answers, for or-lists, conjunctions and filters it cannot use', () => {
    const record = fc.record({ id: fc.string({ maxLength: 4 }), cited: fc.boolean(), user_id: value, detail: fc.record({ external_resource_id: value }) });
    const term = fc.tuple(fc.constantFrom('detail/external_resource_id', 'user_id'), value).map(([f, v]) => `${f} eq ${quote(v)}`);
    const filter = fc.oneof(
      fc.array(value, { minLength: 1, maxLength: 4 }).map((vs) => vs.map((v) => `detail/external_resource_id eq ${quote(v)}`).join(' or ')),
      fc
        .tuple(fc.array(value, { minLength: 1, maxLength: 3 }), fc.boolean())
        .map(([vs, c]) => `cited eq ${c} and (${vs.map((v) => `detail/external_resource_id eq ${quote(v)}`).join(' or ')})`),
      fc.array(term, { minLength: 1, maxLength: 3 }).map((ts) => ts.join(' or ')),
      term.map((t) => `not (${t})`),
    );
    fc.assert(
      fc.property(fc.array(record, { maxLength: 40 }), fc.array(record, { maxLength: 10 }), filter, (first, later, text) => {
        const records: Array<Record<string, unknown>> = [...first];
        const index = new EqualityIndex();
        const predicate = parseFilter(text, FIELDS);
        const answer = () => {
          const keys = equalityKeys(text);
          return (keys ? index.lookup(records, keys.path, keys.values) : records).filter(predicate);
        };
        const sameAs = (got: unknown[]) => expect(new Set(got)).toEqual(new Set(records.filter(predicate)));
        sameAs(answer());
        records.push(...later); // records appended after the index was built are found too
        sameAs(answer());
        expect(answer()).toHaveLength(records.filter(predicate).length);
      }),
      { numRuns: 300 },
    );
  });
});
