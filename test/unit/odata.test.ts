import fc from 'fast-check';
import { GatewayError } from '../../src/errors/gateway-error';
import { filesCollection } from '../../src/http/collections';
import { normalizeDateTime, parseFilter } from '../../src/odata/parse-filter';
import { parseQueryOptions } from '../../src/odata/parse-query-options';
import { SkipTokenCodec } from '../../src/odata/skip-token';

const codec = new SkipTokenCodec('s'.repeat(40));
const limits = { defaultTop: 50, maxTop: 500 };

describe('parseFilter', () => {
  it.each([
    ["status eq 'active'", [{ field: 'status', op: 'eq', value: 'active' }]],
    ['last_modified_datetime ge 2026-01-02T03:04:05+02:00', [{ field: 'modified', op: 'ge', value: '2026-01-02T01:04:05.000Z' }]],
    ["last_modified_datetime lt '2026-01-02T03:04:05.123Z'", [{ field: 'modified', op: 'lt', value: '2026-01-02T03:04:05.123Z' }]],
    ["(status eq 'deleted') AND id eq 'it''s:here'", [{ field: 'status', op: 'eq', value: 'deleted' }, { field: 'id', op: 'eq', value: "it's:here" }]],
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

describe('SkipTokenCodec', () => {
  const payload = fc.record({
    v: fc.constant(1 as const),
    c: fc.string(),
    o: fc.string(),
    f: fc.string(),
    s: fc.string(),
    k: fc.array(fc.string(), { minLength: 1, maxLength: 2 }),
  });

  it('round-trips every payload for the collection it was issued for', () => {
    fc.assert(fc.property(payload, (p) => expect(codec.decode(codec.encode(p), p.c)).toEqual(p)));
  });

  it('refuses any change to a token, and tokens of another secret or collection', () => {
    fc.assert(
      fc.property(payload, fc.nat(), fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'.split('')), (p, pos, ch) => {
        const token = codec.encode(p);
        const i = pos % token.length;
        fc.pre(token[i] !== ch);
        const edited = token.slice(0, i) + ch + token.slice(i + 1);
        expect(() => codec.decode(edited, p.c)).toThrow(GatewayError);
      }),
    );
    const token = codec.encode({ v: 1, c: 'files', o: '', f: '', s: '', k: ['a'] });
    expect(() => new SkipTokenCodec('t'.repeat(40)).decode(token, 'files')).toThrow(/signature/);
    expect(() => codec.decode(token, 'users')).toThrow(/another collection/);
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
