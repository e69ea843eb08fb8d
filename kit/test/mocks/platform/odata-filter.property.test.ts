import fc from 'fast-check';
import { parseFilter } from '../../../src/mocks/platform/api/odata-query';
import { allOf, anyOf, filterBatches, quote } from 'content-gateway/platform';

const FIELD = 'detail/external_resource_id';
const FIELDS = new Set(['cited', FIELD]);
const id = fc.string({ minLength: 1, maxLength: 30 });

describe('OData filters for the Data API', () => {
  it('batches keep every value once, in order, within the character and term budgets (a lone over-long value gets a batch of its own)', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 200 }), fc.integer({ min: 40, max: 3000 }), fc.integer({ min: 1, max: 50 }), (values, maxChars, maxTerms) => {
        const batches = filterBatches(FIELD, values, { maxChars, maxTerms });
        expect(batches.flat()).toEqual(values);
        for (const b of batches) {
          expect(b.length).toBeGreaterThan(0);
          expect(b.length).toBeLessThanOrEqual(maxTerms);
          if (b.length > 1) expect(encodeURIComponent(anyOf(FIELD, b)).length).toBeLessThanOrEqual(maxChars);
        }
      }),
    );
  });

  it("any id, quotes and all, matches exactly itself under the platform's filter grammar", () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 1, maxLength: 8 }), id, fc.boolean(), (ids, other, cited) => {
        const predicate = parseFilter(allOf(cited ? 'cited eq true' : undefined, anyOf(FIELD, ids)) as string, FIELDS);
        const record = (x: string) => ({ cited: true, detail: { external_resource_id: x } });
        for (const x of ids) expect(predicate(record(x))).toBe(true);
        expect(predicate(record(other))).toBe(ids.includes(other));
        expect(quote(other)).toBe(`'${other.split("'").join("''")}'`);
      }),
      { numRuns: 150 },
    );
  });
});
