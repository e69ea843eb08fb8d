import crypto from 'node:crypto';
import fc from 'fast-check';
import { GatewayError } from '../../src/errors/gateway-error';
import { filesCollection } from '../../src/http/collections';
import { normalizeDateTime, parseFilter } from '../../src/odata/parse-filter';
import { parseQueryOptions } from '../../src/odata/parse-query-options';
import { MAX_SKIPTOKEN_LENGTH, SkipTokenCodec } from '../../src/odata/skip-token';

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
  const options = fc.record({
    orderby: fc.string(),
    select: fc.string(),
    filter: fc.array(fc.tuple(fc.string(), fc.constantFrom('eq' as const, 'gt' as const, 'ge' as const, 'lt' as const, 'le' as const), fc.string({ unit: 'binary' })), { maxLength: 6 }),
  });
  const position = fc.record({ collection: fc.string({ unit: 'binary' }), options, after: fc.array(fc.string({ unit: 'binary', maxLength: 200 }), { minLength: 1, maxLength: 2 }) });

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
    expect(codec.decode(token, 'files')).toEqual({ format: 'given', options: { orderby: 'id desc', filter: "status eq 'active'", select: 'name' }, after: ['src:a/b'] });
    expect(() => codec.decode(token, 'users')).toThrow(/another collection/);
    const { page } = parseQueryOptions({ $skiptoken: token }, filesCollection, limits, codec, 'files');
    expect(page).toMatchObject({ orderBy: { field: 'id', direction: 'desc' }, filters: [{ field: 'status', op: 'eq', value: 'active' }], select: ['name'], after: ['src:a/b'] });
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
