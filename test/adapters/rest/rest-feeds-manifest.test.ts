import fs from 'node:fs';
import path from 'node:path';
import { parseRestManifest } from '../../../src/adapters/rest';
import { cursorMs, formatCursor, lookBackMs } from '../../../src/adapters/rest/rest-cursor';

const UPDATED = fs.readFileSync(path.join(__dirname, 'fixtures/feeds-updated.yaml'), 'utf8');
const CHANGE = fs.readFileSync(path.join(__dirname, 'fixtures/feeds-change.yaml'), 'utf8');
const LOOKUP = fs.readFileSync(path.join(__dirname, 'fixtures/feeds-lookup.yaml'), 'utf8');
const parse = (text: string) => parseRestManifest(text, 'feeds.yaml');
const problems = (text: string): string => {
  try {
    parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the manifest was accepted');
};

describe('incremental_sync updated_since and change_feed in a manifest', () => {
  it('accepts both fixtures, full_run response rule included', () => {
    expect(parse(UPDATED).manifest.streams.documents.incremental_sync?.type).toBe('updated_since');
    const change = parse(CHANGE).manifest.streams.documents.incremental_sync;
    expect(change?.type === 'change_feed' && change.feed.requester.error_handler?.response_filters?.[0]?.action).toBe('full_run');
  });

  it('refuses an updated_since without its cursor, and a look-back that is no duration, naming the place', () => {
    expect(problems(UPDATED.replace('      cursor: updated\n', ''))).toMatch(/incremental_sync \(line \d+\): missing field "cursor"/);
    expect(problems(UPDATED.replace('look_back: PT1M', 'look_back: 10 minutes'))).toMatch(/incremental_sync\.look_back \(line \d+\): must match pattern/);
  });

  it('refuses a change_feed without its event mapping, and a cursor or event expression that does not compile', () => {
    expect(problems(CHANGE.replace(/ {6}map:\n(?: {8}.*\n)+/, ''))).toMatch(/missing field "map"/);
    expect(problems(UPDATED.replace('cursor: updated', 'cursor: "updated +"'))).toMatch(/incremental_sync\.cursor \(line \d+\)/);
    expect(problems(CHANGE.replace(`delete: "op = 'delete'"`, 'delete: "op ="'))).toMatch(/incremental_sync\.map\.delete \(line \d+\)/);
  });

  it('accepts a change_feed read by lookup, refuses record and lookup together naming both, and an ignore rule on the lookup', () => {
    const sync = parse(LOOKUP).manifest.streams.documents.incremental_sync;
    expect(sync?.type === 'change_feed' && sync.map.lookup).toEqual({ requester: { path: '/docs/{record.resource.gid}' }, record_selector: 'data' });
    const both = problems(LOOKUP.replace('        lookup:\n', '        record: doc\n        lookup:\n'));
    expect(both).toMatch(/incremental_sync\.map \(line \d+\): give record or lookup, not both/);
    const ignoring = "{ path: '/docs/{record.resource.gid}', error_handler: { response_filters: [{ http_codes: [404], action: ignore }] } }";
    expect(problems(LOOKUP.replace("{ path: '/docs/{record.resource.gid}' }", ignoring))).toMatch(
      /map\.lookup\.requester\.error_handler.*"ignore" is refused here/,
    );
  });

  it('reads look-back windows and cursors in each format', () => {
    expect([lookBackMs('PT10M'), lookBackMs('P1DT1H'), lookBackMs('PT1.5S'), lookBackMs(90), lookBackMs(undefined)]).toEqual([
      600_000, 90_000_000, 1500, 90_000, 0,
    ]);
    expect(() => lookBackMs('PT')).toThrow(/ISO 8601 duration/);
    const at = Date.parse('2026-03-01T00:00:00Z');
    expect([cursorMs('2026-03-01T00:00:00Z'), cursorMs(String(at / 1000), 'epoch_seconds'), cursorMs(String(at), 'epoch_millis')]).toEqual([at, at, at]);
    expect(() => cursorMs('yesterday')).toThrow(/not a time in format iso/);
    expect([formatCursor(at + 999), formatCursor(at + 999, 'epoch_seconds'), formatCursor(at, 'epoch_millis')]).toEqual([
      '2026-03-01T00:00:00.999Z',
      String(at / 1000),
      String(at),
    ]);
  });
});
