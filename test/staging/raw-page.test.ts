import fc from 'fast-check';
import { compareCodePoints } from '../../src/staging/read-path/code-point-order';
import type { TextRow } from '../../src/staging/read-path/pg-pooled-query';
import { pageFromRawRows } from '../../src/staging/read-path/raw-page';

const raw = (...values: Array<string | null>): TextRow => values;

/** Distinct ids in page order, each with JSON of its own (non-ASCII included), as Postgres's rows of text. */
const rowsArb = fc
  .uniqueArray(fc.string({ unit: fc.constantFrom('a', 'Z', '0', ',', 'é', '中', '\u{1F600}'), minLength: 1, maxLength: 6 }), { maxLength: 15 })
  .map((ids) => [...ids].sort(compareCodePoints).map((id) => ({ id, json: JSON.stringify({ id, name: `${id}—☕` }) })));

describe("Postgres's raw page rows", () => {
  it("serve exactly the first `top` rows, and the last one's position when more follow", () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 0, max: 12 }), (rows, top) => {
        const read = rows.slice(0, top + 1);
        const page = pageFromRawRows(
          read.map((r) => raw(r.id, r.json)),
          1,
          top,
        );
        const served = rows.slice(0, top);
        expect(page).toBeDefined();
        expect(JSON.parse(`[${page?.json.toString('utf8') ?? ''}]`)).toEqual(served.map((r) => JSON.parse(r.json)));
        expect(page?.count).toBe(served.length);
        const last = served[served.length - 1];
        expect(page?.next).toEqual(rows.length > top && last ? [last.id] : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('fail a page when a served row has no JSON (every row holds it), but not when only the extra row lacks it', () => {
    expect(() => pageFromRawRows([raw('a', '1'), raw('b', null), raw('c', '3')], 1, 5)).toThrow(/no stored list JSON/);
    expect(() => pageFromRawRows([raw('a', null), raw('b', '2')], 1, 1)).toThrow(/no stored list JSON/);
    expect(() => pageFromRawRows([raw('a', '1'), raw('b', ''), raw('c', '3')], 1, 3)).toThrow(/no stored list JSON/);
    expect(pageFromRawRows([raw('a', '1'), raw('b', null)], 1, 1)).toEqual({ json: Buffer.from('1'), count: 1, next: ['a'] });
  });

  it('give every ordering value of the last served row as the position, and count bytes, not characters', () => {
    const rows = [raw('t1', 'b', '"é"'), raw('t1', 'c', '"☕"'), raw('t2', 'a', '"中"')];
    expect(pageFromRawRows(rows, 2, 2)).toEqual({ json: Buffer.from('"é","☕"'), count: 2, next: ['t1', 'c'] });
    expect(pageFromRawRows(rows, 2, 3)).toEqual({ json: Buffer.from('"é","☕","中"'), count: 3 });
  });

  it('answer an empty page with no items and no position', () => {
    expect(pageFromRawRows([], 1, 3)).toEqual({ json: Buffer.alloc(0), count: 0 });
    expect(pageFromRawRows([raw('a', '1')], 1, 0)).toEqual({ json: Buffer.alloc(0), count: 0 });
  });
});
