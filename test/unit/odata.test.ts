import crypto from 'node:crypto';
import fc from 'fast-check';
import { GatewayError } from '../../src/errors/gateway-error';
import { filesCollection } from '../../src/http/collections';
import { normalizeDateTime, parseFilter } from '../../src/odata/parse-filter';
import { parseQueryOptions } from '../../src/odata/parse-query-options';
import { reduceFilter } from '../../src/odata/reduce-filter';
import { compareCodePoints } from '../../src/staging/read-path/code-point-order';
import { MAX_SKIPTOKEN_LENGTH, SkipTokenCodec } from '../../src/odata/skip-token';
import { MAX_ID_LENGTH } from '../../src/wire/global-id';

const codec = new SkipTokenCodec('s'.repeat(40));
const limits = { defaultTop: 50, maxTop: 500 };

describe('parseFilter', () => {
  it.each([
    ["status eq 'active'", [{ field: 'status', op: 'eq', value: 'active' }]],
    ['last_modified_datetime ge 2026-01-02T03:04:05+02:00', [{ field: 'modified', op: 'ge', value: '2026-01-02T01:04:05.000Z' }]],
    ["last_modified_datetime lt '2026-01-02T03:04:05.123Z'", [{ field: 'modified', op: 'lt', value: '2026-01-02T03:04:05.123Z' }]],
    [
      "(status eq 'deleted') AND id eq 'it''s:here'",
      [
        { field: 'status', op: 'eq', value: 'deleted' },
        { field: 'id', op: 'eq', value: "it's:here" },
      ],
    ],
  ])('parses %s', (input, expected) => {
    expect(parseFilter(input, filesCollection)).toEqual(expected);
  });

  it('answers any input with clauses or a 400 GatewayError, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[a-z_ ()'=0-9:TZ.-]{0,40}$/)), (input) => {
        try {
          const clauses = parseFilter(input, filesCollection);
          expect(clauses.length).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(GatewayError);
          expect((error as GatewayError).status).toBe(400);
          expect((error as GatewayError).message).toMatch(/Accepted: comparisons joined by 'and'/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips any date-time into the stored form', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(normalizeDateTime(d.toISOString())).toBe(d.toISOString());
      }),
    );
    expect(normalizeDateTime('2026-01-01')).toBeUndefined();
    expect(normalizeDateTime('2026-01-01T00:00:00')).toBeUndefined();
  });
});

describe('reduceFilter', () => {
  // Few values, so that bounds tie and rows sit on them; `\uffff` and `😀` compare by code point, not UTF-16 unit.
  const value = fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z', '😀', '\uffff');
  const clause = fc.record({
    field: fc.constantFrom('modified', 'id'),
    op: fc.constantFrom('eq' as const, 'gt' as const, 'ge' as const, 'lt' as const, 'le' as const),
    value,
  });
  const holds = (c: { op: string; value: string }, v: string) => {
    const o = compareCodePoints(v, c.value);
    return { eq: o === 0, gt: o > 0, ge: o >= 0, lt: o < 0, le: o <= 0 }[c.op];
  };

  it('keeps exactly the rows the filter kept, in at most one lower bound, one upper bound and the distinct eq values per field', () => {
    fc.assert(
      fc.property(fc.array(clause, { maxLength: 12 }), value, value, (clauses, m, id) => {
        const reduced = reduceFilter(clauses);
        const row = { modified: m, id };
        expect(reduced.every((c) => holds(c, row[c.field]))).toBe(clauses.every((c) => holds(c, row[c.field])));
        for (const field of ['modified', 'id'] as const) {
          const mine = reduced.filter((c) => c.field === field);
          expect(mine.filter((c) => c.op !== 'eq').length).toBeLessThanOrEqual(2);
          expect(mine.filter((c) => c.op === 'eq').length).toBe(new Set(clauses.filter((c) => c.field === field && c.op === 'eq').map((c) => c.value)).size);
        }
        expect(reduceFilter(reduced)).toEqual(reduced);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('SkipTokenCodec', () => {
  const options = fc.record({
    orderby: fc.string(),
    select: fc.string(),
    filter: fc.array(
      fc.tuple(fc.string(), fc.constantFrom('eq' as const, 'gt' as const, 'ge' as const, 'lt' as const, 'le' as const), fc.string({ unit: 'binary' })),
      { maxLength: 6 },
    ),
  });
  const position = fc.record({
    collection: fc.string({ unit: 'binary' }),
    options,
    after: fc.array(fc.string({ unit: 'binary', maxLength: 200 }), { minLength: 1, maxLength: 2 }),
  });

  it('round-trips every position for the collection it was issued for', () => {
    fc.assert(
      fc.property(position, (p) => {
        expect(codec.decode(codec.encode(p.collection, p.options, p.after), p.collection)).toEqual({ format: 'canonical', options: p.options, after: p.after });
      }),
    );
  });

  it('refuses any change to a token, and tokens of another secret or collection', () => {
    fc.assert(
      fc.property(position, fc.nat(), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'.split('')), (p, pos, ch) => {
        const token = codec.encode(p.collection, p.options, p.after);
        const i = pos % token.length;
        fc.pre(token[i] !== ch);
        const edited = token.slice(0, i) + ch + token.slice(i + 1);
        expect(() => codec.decode(edited, p.collection)).toThrow(GatewayError);
      }),
    );
    const token = codec.encode('files', { orderby: 'id asc', select: '', filter: [] }, ['a']);
    expect(() => new SkipTokenCodec('t'.repeat(40)).decode(token, 'files')).toThrow(/signature/);
    expect(() => codec.decode(token, 'users')).toThrow(/another collection/);
  });

  it('still reads tokens of the first format (options as given, keys as they are), for crawls that span an upgrade', () => {
    const body = Buffer.from(JSON.stringify({ v: 1, c: 'files', o: 'id desc', f: "status eq 'active'", s: 'name', k: ['src:a/b'] })).toString('base64url');
    const token = `${body}.${crypto.createHmac('sha256', 's'.repeat(40)).update(body).digest('base64url')}`;
    expect(codec.decode(token, 'files')).toEqual({
      format: 'given',
      options: { orderby: 'id desc', filter: "status eq 'active'", select: 'name' },
      after: ['src:a/b'],
    });
    expect(() => codec.decode(token, 'users')).toThrow(/another collection/);
    const { page } = parseQueryOptions({ $skiptoken: token }, filesCollection, limits, codec, 'files');
    expect(page).toMatchObject({
      orderBy: { field: 'id', direction: 'desc' },
      filters: [{ field: 'status', op: 'eq', value: 'active' }],
      select: ['name'],
      after: ['src:a/b'],
    });
  });

  it('keeps a token under 3,500 characters for any served ids as keys and any canonical options a page can carry', () => {
    // Served ids: at most MAX_ID_LENGTH percent-encoded (wire/global-id); control characters cost 3 there and 6 in JSON.
    const servedId = fc.string({ unit: fc.constantFrom('a', '/', '\u0001', '"', 'é', '中', '😀', '%'), maxLength: 1100 }).map((id) => {
      let s = `src:${id}`;
      while (encodeURIComponent(s).length > MAX_ID_LENGTH) s = s.slice(0, -1).replace(/[\ud800-\udbff]$/, '');
      return s;
    });
    const at = '2026-01-01T00:00:00.000Z';
    fc.assert(
      fc.property(servedId, servedId, fc.string({ maxLength: 2000 }), (key, filtered, collection) => {
        const options = {
          orderby: 'last_modified_datetime desc',
          select: filesCollection.selectable.join(','),
          filter: [
            ['modified', 'eq', at],
            ['modified', 'ge', at],
            ['modified', 'lt', at],
            ['status', 'eq', 'deleted'],
            ['id', 'eq', filtered],
          ] as const,
        };
        expect(codec.encode(`permissions:${collection}`, options, [at, key]).length).toBeLessThan(3500);
      }),
      {
        examples: [
          [`src:${'\u0001'.repeat(339)}`, `src:${'\u0001'.repeat(339)}`, 'x'.repeat(2000)],
          [`src:${'"'.repeat(339)}`, `src:${'😀'.repeat(84)}`, ''],
        ],
      },
    );
  });

  it('will not issue a token longer than it accepts', () => {
    expect(() => codec.encode('files', { orderby: 'id asc', select: '', filter: [] }, ['x'.repeat(MAX_SKIPTOKEN_LENGTH)])).toThrow(/over 4096/);
  });

  it('refuses secrets too short to be secret', () => {
    expect(() => new SkipTokenCodec('short')).toThrow(/32 characters/);
  });
});

describe('parseQueryOptions', () => {
  it('clamps $top, defaults it, and applies $skip only without a token', () => {
    expect(parseQueryOptions({}, filesCollection, limits, codec, 'files').page).toMatchObject({ top: 50, skip: 0, orderBy: { field: 'id', direction: 'asc' } });
    expect(parseQueryOptions({ $top: '9999', $skip: '4' }, filesCollection, limits, codec, 'files').page).toMatchObject({ top: 500, skip: 4 });
  });

  it('answers any combination of raw option strings with a page or a 400, never anything else', () => {
    const raw = fc.option(fc.string({ maxLength: 30 }), { nil: undefined });
    fc.assert(
      fc.property(fc.record({ $top: raw, $skip: raw, $skiptoken: raw, $filter: raw, $select: raw, $orderby: raw }), (query) => {
        const defined = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
        try {
          const { page } = parseQueryOptions(defined, filesCollection, limits, codec, 'files');
          expect(page.top).toBeGreaterThanOrEqual(1);
          expect(page.top).toBeLessThanOrEqual(limits.maxTop);
        } catch (error) {
          expect(error).toBeInstanceOf(GatewayError);
          expect((error as GatewayError).status).toBe(400);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
