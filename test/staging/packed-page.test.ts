import fc from 'fast-check';
import { compareCodePoints } from '../../src/staging/read-path/code-point-order';
import { pageFromPacked, type PackedPage } from '../../src/staging/read-path/packed-page';
import type { PageRequest } from '../../src/staging/read-path/page-query';

type Field = 'id' | 'modified';

const request = (top: number, direction: 'asc' | 'desc' = 'asc', field: Field = 'id'): PageRequest<Field> => ({
  top,
  skip: 0,
  orderBy: { field, direction },
  filters: [],
});

/** Distinct ids, sorted as the database sorts them, each with JSON of its own (non-ASCII included). */
const rowsArb = fc
  .uniqueArray(fc.string({ unit: fc.constantFrom('a', 'Z', '0', ',', 'é', '中', '\u{1F600}'), minLength: 1, maxLength: 6 }), { maxLength: 15 })
  .map((ids) => [...ids].sort(compareCodePoints).map((id) => [id, JSON.stringify({ id, name: `${id}—☕` })] as const));

/** What SQLite's page aggregate holds for these rows, each `[ordering values (width of them)…, JSON or null]`. */
function packPageRows(rows: ReadonlyArray<readonly unknown[]>, width: number): PackedPage {
  const keys = Array.from({ length: width }, (_, c) => rows.map((row) => String(row[c])));
  const texts = rows.map((row) => (typeof row[width] === 'string' ? (row[width] as string) : ''));
  const stored = rows.filter((row) => typeof row[width] === 'string').length;
  return { items: Buffer.from(texts.join(','), 'utf8'), lengths: texts.map((t) => Buffer.byteLength(t)), keys, n: rows.length, stored };
}

describe("packed pages (SQLite's page aggregate)", () => {
  it("serve exactly the first `top` rows, and the last one's position when more follow", () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 12 }), (rows, top) => {
        const read = rows.slice(0, top + 1);
        const page = pageFromPacked(packPageRows(read, 1), request(top));
        const served = rows.slice(0, top);
        expect(page).toBeDefined();
        expect(JSON.parse(`[${page?.json.toString('utf8')}]`)).toEqual(served.map(([, json]) => JSON.parse(json)));
        expect(page?.count).toBe(served.length);
        expect(page?.next).toEqual(rows.length > top ? [served[served.length - 1]?.[0]] : undefined);
      }),
      { numRuns: 300 },
    );
  });

  it('count bytes, not characters, so a non-ASCII extra row is cut off whole', () => {
    const page = pageFromPacked(
      packPageRows(
        [
          ['a', '"é"'],
          ['b', '"☕"'],
        ],
        1,
      ),
      request(1),
    );
    expect(page).toEqual({ json: Buffer.from('"é"'), count: 1, next: ['a'] });
  });

  it('read descending pages in descending order, and two ordering columns', () => {
    expect(
      pageFromPacked(
        packPageRows(
          [
            ['b', '1'],
            ['a', '2'],
          ],
          1,
        ),
        request(5, 'desc'),
      ),
    ).toEqual({ json: Buffer.from('1,2'), count: 2 });
    const byTime = packPageRows(
      [
        ['t1', 'b', '1'],
        ['t1', 'c', '2'],
        ['t2', 'a', '3'],
      ],
      2,
    );
    expect(pageFromPacked(byTime, request(2, 'asc', 'modified'))).toEqual({ json: Buffer.from('1,2'), count: 2, next: ['t1', 'c'] });
  });

  it('are declined when a row is out of page order (either direction) or repeats its position', () => {
    expect(
      pageFromPacked(
        packPageRows(
          [
            ['b', '1'],
            ['a', '2'],
          ],
          1,
        ),
        request(5),
      ),
    ).toBeUndefined();
    expect(
      pageFromPacked(
        packPageRows(
          [
            ['a', '1'],
            ['b', '2'],
          ],
          1,
        ),
        request(5, 'desc'),
      ),
    ).toBeUndefined();
    expect(
      pageFromPacked(
        packPageRows(
          [
            ['t1', 'a', '1'],
            ['t1', 'a', '2'],
          ],
          2,
        ),
        request(5, 'asc', 'modified'),
      ),
    ).toBeUndefined();
  });

  it('are declined when a row has no JSON, on the page or just after it', () => {
    expect(
      pageFromPacked(
        packPageRows(
          [
            ['a', '1'],
            ['b', null],
          ],
          1,
        ),
        request(1),
      ),
    ).toBeUndefined();
    expect(
      pageFromPacked(
        packPageRows(
          [
            ['a', null],
            ['b', '2'],
          ],
          1,
        ),
        request(5),
      ),
    ).toBeUndefined();
  });

  it('are declined when the lengths or ordering values do not account for the rows and bytes', () => {
    const good = packPageRows(
      [
        ['a', '"x"'],
        ['b', '"y"'],
      ],
      1,
    );
    const broken: PackedPage[] = [
      { ...good, lengths: [3, 4] },
      { ...good, lengths: [3] },
      { ...good, keys: [['a']] },
      { ...good, items: Buffer.from('"x","y",') },
    ];
    expect(pageFromPacked(good, request(5))).toEqual({ json: Buffer.from('"x","y"'), count: 2 });
    for (const packed of broken) expect(pageFromPacked(packed, request(5))).toBeUndefined();
  });

  it('answer an empty page with no items and no position, and decline a $top of 0', () => {
    expect(pageFromPacked(packPageRows([], 1), request(3))).toEqual({ json: Buffer.alloc(0), count: 0 });
    expect(pageFromPacked(packPageRows([['a', '1']], 1), request(0))).toBeUndefined();
  });
});
