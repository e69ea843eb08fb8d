import { Readable } from 'node:stream';
import fc from 'fast-check';
import pino from 'pino';
import type { AccessEntry, FileRecord } from '../../src/adapters/adapter';
import { toNativeId } from '../../src/adapters/filesystem/filesystem-mapping';
import { idText } from '../../src/adapters/sql/sql-values';
import { fileId, groupId } from '../../src/adapters/work-management/work-management-mapping';
import { filesCollection } from '../../src/http/collections';
import { MAX_SKIPTOKEN_LENGTH } from '../../src/odata/skip-token';
import { compareCodePoints } from '../../src/staging/read-path/code-point-order';
import { runSync } from '../../src/sync/run-sync';
import { globalId, MAX_ID_LENGTH } from '../../src/wire/global-id';
import { CLIENTS, sendReading, type Client } from '../helpers/id-clients';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });
const MAX_URL_LENGTH = 8192;
/** The longest path and query the gateway's own links may have (`/v1/files/<id>/permissions?$top=…&$skiptoken=…`). */
const LONGEST_LINK = '/v1/files/'.length + MAX_ID_LENGTH + '/permissions?$top=9999&$skiptoken='.length + MAX_SKIPTOKEN_LENGTH;

// ---------------------------------------------------------------- ids as each adapter forms them

/** Characters of 1 to 4 UTF-8 bytes, reserved ones that percent-encoding triples, quotes, and a few the raw form cannot carry. */
const UNIT = fc.constantFrom(
  'a',
  'Z',
  '7',
  '-',
  '_',
  '.',
  '~',
  ' ',
  ':',
  '/',
  '%',
  '+',
  "'",
  '"',
  '&',
  '=',
  '@',
  '(',
  'é',
  'ß',
  '中',
  '語',
  '😀',
  '\u00a0',
  '?',
  '#',
  '\\',
);
const text = (minLength: number, maxLength: number) => fc.string({ unit: UNIT, minLength, maxLength }).filter((s) => s.trim() !== '');

/** Lengths around every limit an id met: 1,024 characters percent-encoded (the rule), 1,024 decoded, 2,900 bytes, 4,096 and 8,192. */
const TARGETS = [1022, 1023, 1024, 1025, 1026, 1100, 2048, 2900, 3000, 4096, 8200] as const;
const PAD_UNITS = ['x', '/', 'é', '中', '😀', 'folder/'] as const;

/** `base` with a run of one unit after it, sized so that `<source>:<id>` percent-encoded lands near a limit. */
function nearLimit(source: string, base: string): fc.Arbitrary<string> {
  return fc
    .record({ unit: fc.constantFrom(...PAD_UNITS), target: fc.constantFrom(...TARGETS), jitter: fc.integer({ min: -2, max: 2 }) })
    .map(({ unit, target, jitter }) => {
      const room = target + jitter - encodeURIComponent(`${source}:${base}`).length;
      return `${base}${unit.repeat(Math.max(0, Math.floor(room / encodeURIComponent(unit).length)))}`;
    });
}

interface Shape {
  /** The adapter's name as the id prefix. */
  source: string;
  file: fc.Arbitrary<string>;
  group: fc.Arbitrary<string>;
  user: fc.Arbitrary<string>;
}

const fsPath = fc
  .array(
    text(1, 12).filter((s) => s !== '.' && s !== '..' && !s.includes('/')),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => parts.join('/'));
const digits = fc.stringMatching(/^[1-9][0-9]{0,19}$/);
const sqlKey = fc.oneof(text(1, 30), fc.integer(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })).map((v) => idText(v) as string);

/** How each adapter names its files, groups and users (src/adapters/*, templates/adapter), short and near every limit. */
const SHAPES: readonly Shape[] = [
  {
    source: 'fs',
    file: fc
      .oneof(
        fsPath,
        fsPath.chain((p) => nearLimit('fs', `${p}/`)),
      )
      .map((p) => toNativeId(p.replace(/\/+$/, '') || 'x')),
    group: fc.oneof(text(1, 20), nearLimit('fs', 'team-')),
    user: text(1, 20),
  },
  {
    source: 'wm',
    file: fc.oneof(digits.map(fileId.task), digits.map(fileId.attachment)),
    group: fc.oneof(digits.map(groupId.project), digits.map(groupId.team), digits.map(groupId.workspaceMembers), digits.map(groupId.portfolio)),
    user: digits,
  },
  {
    source: 'sql',
    file: fc.oneof(
      sqlKey,
      sqlKey.chain((k) => nearLimit('sql', k)),
    ),
    group: fc.oneof(sqlKey, nearLimit('sql', 'g')),
    user: sqlKey,
  },
  // A scaffolded adapter (templates/adapter) takes its source's `item.id` as it is; its name may be 32 characters.
  {
    source: 'a-freshly-scaffolded-source-name',
    file: fc.oneof(text(1, 40), nearLimit('a-freshly-scaffolded-source-name', 'item-')),
    group: fc.oneof(text(1, 20), nearLimit('a-freshly-scaffolded-source-name', 'g-')),
    user: text(1, 20),
  },
];

interface SourcePlan {
  source: string;
  files: Array<{ nativeId: string; binary: boolean; run: number }>;
  groups: string[];
  user: string;
}

const planArb: fc.Arbitrary<SourcePlan[]> = fc.subarray([...SHAPES], { minLength: 1, maxLength: 3 }).chain((shapes) =>
  fc.tuple(
    ...shapes.map((shape) =>
      fc.record({
        source: fc.constant(shape.source),
        files: fc.uniqueArray(fc.record({ nativeId: shape.file, binary: fc.boolean(), run: fc.integer({ min: 0, max: 2 }) }), {
          minLength: 1,
          maxLength: 5,
          selector: (f) => f.nativeId,
        }),
        groups: fc.uniqueArray(shape.group, { minLength: 1, maxLength: 2 }),
        user: shape.user,
      }),
    ),
  ),
);

// ---------------------------------------------------------------- query options the contract allows

interface Listed {
  id: string;
  last_modified_datetime: string;
  status: string;
}

type Clause =
  | { kind: 'modified'; op: 'eq' | 'gt' | 'ge' | 'lt' | 'le'; at: string; spelling: 'Z' | 'offset' | 'quoted' }
  | { kind: 'status'; value: 'active' | 'deleted' }
  | { kind: 'id'; index: number };

const clauseArb: fc.Arbitrary<Clause> = fc.oneof(
  fc.record({
    kind: fc.constant('modified' as const),
    op: fc.constantFrom('eq' as const, 'gt' as const, 'ge' as const, 'lt' as const, 'le' as const),
    at: fc.constantFrom(...[0, 1, 2, 3].map(runTime)),
    spelling: fc.constantFrom('Z' as const, 'offset' as const, 'quoted' as const),
  }),
  fc.record({ kind: fc.constant('status' as const), value: fc.constantFrom('active' as const, 'deleted' as const) }),
  fc.record({ kind: fc.constant('id' as const), index: fc.nat() }),
);

interface Options {
  top: number;
  orderby: string;
  /** Clauses, repeated until the text is about `filterLength` long (at most the contract's 2,048). */
  clauses: Clause[];
  filterLength: number;
  parenthesised: boolean;
  select: string[];
  selectLength: number;
}

const optionsArb: fc.Arbitrary<Options> = fc.record({
  top: fc.integer({ min: 1, max: 3 }),
  orderby: fc.constantFrom('', 'id', 'id asc', 'id desc', 'last_modified_datetime', 'last_modified_datetime DESC', '  last_modified_datetime   asc '),
  clauses: fc.array(clauseArb, { maxLength: 3 }),
  filterLength: fc.integer({ min: 0, max: 2048 }),
  parenthesised: fc.boolean(),
  select: fc.subarray([...filesCollection.selectable]),
  selectLength: fc.integer({ min: 0, max: 1024 }),
});

function runTime(run: number): string {
  return new Date(Date.parse('2026-05-01T00:00:00Z') + (run + 1) * 60_000).toISOString();
}

function clauseText(c: Clause, listed: readonly Listed[]): string {
  if (c.kind === 'status') return `status eq '${c.value}'`;
  if (c.kind === 'id') return `id eq '${(listed[c.index % listed.length]?.id ?? 'none').replace(/'/g, "''")}'`;
  const at = c.spelling === 'offset' ? c.at.replace('T00:', 'T02:').replace('.000Z', '+02:00') : c.spelling === 'quoted' ? `'${c.at}'` : c.at;
  return `last_modified_datetime ${c.op} ${at}`;
}

function matches(c: Clause, file: Listed, listed: readonly Listed[]): boolean {
  if (c.kind === 'status') return file.status === c.value;
  if (c.kind === 'id') return file.id === (listed[c.index % listed.length]?.id ?? 'none');
  const order = compareCodePoints(file.last_modified_datetime, c.at);
  return { eq: order === 0, gt: order > 0, ge: order >= 0, lt: order < 0, le: order <= 0 }[c.op];
}

/**
 * `$filter` text within the contract's 2,048 characters: the clauses that fit (an `id eq` of a
 * long id may not), then the first repeated while the whole stays within `filterLength`.
 */
function filterText(o: Options, listed: readonly Listed[]): { text: string; clauses: Clause[] } {
  const wrap = (p: string) => (o.parenthesised ? `(${p})` : p);
  const kept: Clause[] = [];
  let filter = '';
  for (const c of o.clauses) {
    const next = filter ? `${filter} and ${wrap(clauseText(c, listed))}` : wrap(clauseText(c, listed));
    if (next.length > 2048) continue;
    filter = next;
    kept.push(c);
  }
  if (kept.length === 0) return { text: '', clauses: [] };
  const extra = ` and ${wrap(clauseText(kept[0] as Clause, listed))}`;
  while (filter.length + extra.length <= Math.min(o.filterLength, 2048)) filter += extra;
  return { text: filter, clauses: kept };
}

/** `$select` text: the fields, then the first repeated (with spaces) while the whole stays within `length` (and 1,024). */
function selectText(o: Options): string {
  if (o.select.length === 0) return '';
  let select = o.select.join(',');
  const extra = ` , ${o.select[0] as string}`;
  while (select.length + extra.length <= Math.min(o.selectLength, 1024)) select += extra;
  return select;
}

/** What a crawl with these options and these clauses must return, in order. */
function expected(o: Options, clauses: readonly Clause[], listed: readonly Listed[]): string[] {
  const [field = 'id', direction = 'asc'] = o.orderby.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const sign = direction === 'desc' ? -1 : 1;
  return listed
    .filter((f) => clauses.every((c) => matches(c, f, listed)))
    .sort((a, b) => sign * ((field === 'id' ? 0 : compareCodePoints(a.last_modified_datetime, b.last_modified_datetime)) || compareCodePoints(a.id, b.id)))
    .map((f) => f.id);
}

// ---------------------------------------------------------------- the property

/** Whether `client` pasting the id in raw can carry it (docs/endpoints.md): encoded, every id can. */
function rawCarries(client: Client, id: string, listed: ReadonlySet<string>): boolean {
  if (/[?#\\]|%[0-9A-Fa-f]{2}/.test(id) || id.endsWith('/') || id === 'permissions/metadata') return false;
  // `fetch` (WHATWG) drops a space that ends the URL.
  if (client === 'fetch' && id.endsWith(' ')) return false;
  if (id.split('/').some((s) => s === '.' || s === '..')) return false;
  // A raw GET of `a/download` is the download of `a` when `a` exists.
  const stem = /^(.+)\/(download|permissions)$/.exec(id)?.[1];
  return stem === undefined || !listed.has(stem);
}

async function page(gw: TestGateway, link: string): Promise<{ value: unknown; next?: string }> {
  const pathAndQuery = link.replace(gw.url, '');
  expect([pathAndQuery.slice(0, 120), pathAndQuery.length <= LONGEST_LINK]).toEqual([pathAndQuery.slice(0, 120), true]);
  const res = await gw.get(pathAndQuery, AUTH);
  expect([pathAndQuery.slice(0, 120), res.status, res.body.error]).toEqual([pathAndQuery.slice(0, 120), 200, undefined]);
  return { value: res.body.value, next: res.body['@odata.nextLink'] };
}

async function followAll(gw: TestGateway, first: { value: unknown; next?: string }, pick: (value: unknown) => Array<{ id: string }>): Promise<string[]> {
  const ids = pick(first.value).map((i) => i.id);
  for (let next = first.next, n = 0; next !== undefined; n++) {
    if (n > 200) throw new Error('no end to the pages');
    const p = await page(gw, next);
    ids.push(...pick(p.value).map((i) => i.id));
    next = p.next;
  }
  return ids;
}

async function readThrough(
  gw: TestGateway,
  client: Client,
  operation: 'listFilePermissions' | 'listGroupMembers',
  id: string,
  pick: (value: unknown) => Array<{ id: string }>,
): Promise<string[]> {
  const answer = await sendReading(gw.url, client, { operation, id }, '?$top=1');
  expect([client, operation, id.slice(0, 80), answer.status]).toEqual([client, operation, id.slice(0, 80), 200]);
  const body = JSON.parse(answer.text) as { value: unknown; '@odata.nextLink'?: string };
  return followAll(gw, { value: body.value, ...(body['@odata.nextLink'] ? { next: body['@odata.nextLink'] } : {}) }, pick);
}

const fileItems = (value: unknown) => value as Listed[];
const entries = (value: unknown) => (value as { permissions: Array<{ id: string }> }).permissions;
const members = (value: unknown) => value as Array<{ id: string }>;

async function clearStaging(gw: TestGateway): Promise<void> {
  for (const table of ['file_permissions', 'group_members', 'files', 'groups', 'users', 'people', 'sync_checkpoints', 'sync_seen', 'sync_runs'])
    await gw.database.db(table).delete();
}

/** Syncs each source in three runs a minute apart (a file joins in its `run`), so files' last changes differ. */
async function syncPlan(gw: TestGateway, plan: readonly SourcePlan[]): Promise<void> {
  for (const s of plan) {
    const source = new ScriptedSource(s.source).putUser({ nativeId: s.user, email: `user@${s.source}.example`, active: true });
    const [first, ...rest] = s.groups;
    source.putGroup({ nativeId: first as string, name: 'First', members: [{ type: 'USER', nativeId: s.user }] });
    for (const g of rest)
      source.putGroup({
        nativeId: g,
        name: 'Other',
        members: [
          { type: 'GROUP', nativeId: first as string },
          { type: 'USER', nativeId: s.user },
        ],
      });
    const access: AccessEntry[] = [
      { type: 'GROUP', nativeId: first as string },
      { type: 'USER', nativeId: s.user },
    ];
    for (let run = 0; run < 3; run++) {
      for (const f of s.files.filter((file) => file.run === run)) source.putFile(fileOf(f, access));
      const summary = await runSync(
        source,
        { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(runTime(run)) },
        { mode: 'full', allowMassDelete: true },
      );
      expect(summary).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    }
  }
}

function fileOf(f: { nativeId: string; binary: boolean }, access: AccessEntry[]): FileRecord {
  const common = { nativeId: f.nativeId, name: 'A file', externalUrl: 'https://src.example/file', access };
  if (!f.binary) return { ...common, mimeType: 'text/html', content: { kind: 'html', html: '<p>page</p>' } };
  return {
    ...common,
    mimeType: 'text/plain',
    content: { kind: 'binary', open: async () => Readable.from([Buffer.from(`bytes of ${f.nativeId}`)]), version: 'v1' },
  };
}

describe.each(databaseKinds)("ids of every adapter's shapes and contract-valid query options, on %s", (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(kind, { maxUrlLength: MAX_URL_LENGTH });
  });
  afterAll(() => gw.close());

  it('lists every synced file, reads every listed id on every id route, encoded and raw, and accepts every nextLink it sends', async () => {
    await fc.assert(
      fc.asyncProperty(planArb, fc.array(optionsArb, { minLength: 1, maxLength: 3 }), fc.constantFrom(...CLIENTS), async (plan, queries, rawClient) => {
        await clearStaging(gw);
        await syncPlan(gw, plan);
        const listed = await followAll(gw, await page(gw, '/v1/files?$top=3'), fileItems);
        const files = (await gw.get(`/v1/files?$top=${listed.length}`, AUTH)).body.value as Array<Listed & { content: { download_path?: string } }>;
        const synced = plan.flatMap((s) => s.files.map((f) => globalId(s.source, f.nativeId)));
        expect([...listed].sort()).toEqual([...synced].sort());
        const ids = new Set(listed);

        for (const file of files) {
          const clients: Client[] = rawCarries(rawClient, file.id, ids) ? ['encoded', rawClient] : ['encoded'];
          for (const client of clients) {
            const got = await sendReading(gw.url, client, { operation: 'getFile', id: file.id });
            expect([client, file.id.slice(0, 80), got.status]).toEqual([client, file.id.slice(0, 80), 200]);
            expect((JSON.parse(got.text) as { value: { id: string } }).value.id).toBe(file.id);
            expect(await readThrough(gw, client, 'listFilePermissions', file.id, entries)).toHaveLength(2);
            if (file.content.download_path !== undefined) {
              const bytes = await sendReading(gw.url, client, { operation: 'downloadFile', id: file.id });
              expect([client, file.id.slice(0, 80), bytes.status]).toEqual([client, file.id.slice(0, 80), 200]);
            }
          }
        }
        const groups = await followAll(gw, await page(gw, '/v1/groups?$top=1'), members);
        expect(groups).toHaveLength(plan.reduce((n, s) => n + s.groups.length, 0));
        for (const id of groups) {
          for (const client of rawCarries(rawClient, id, new Set(groups)) ? (['encoded', rawClient] as const) : (['encoded'] as const)) {
            expect((await readThrough(gw, client, 'listGroupMembers', id, members)).length).toBeGreaterThanOrEqual(1);
          }
        }

        const all = files.map((f) => ({ id: f.id, last_modified_datetime: f.last_modified_datetime, status: f.status }));
        for (const o of queries) {
          const { text: filter, clauses } = filterText(o, all);
          const select = selectText(o);
          const query = [
            `$top=${o.top}`,
            ...(o.orderby ? [`$orderby=${encodeURIComponent(o.orderby)}`] : []),
            ...(filter ? [`$filter=${encodeURIComponent(filter)}`] : []),
            ...(select ? [`$select=${encodeURIComponent(select)}`] : []),
          ].join('&');
          const first = `/v1/files?${query}`;
          // The client's own URL may be too long for the gateway (a long id in `$filter`): that is the 414 the contract documents.
          if (first.length > MAX_URL_LENGTH) {
            expect((await gw.get(first, AUTH)).status).toBe(414);
            continue;
          }
          const res = await gw.get(first, AUTH);
          expect([first.slice(0, 200), res.status, res.body.error]).toEqual([first.slice(0, 200), 200, undefined]);
          const crawled = await followAll(
            gw,
            { value: res.body.value, ...(res.body['@odata.nextLink'] ? { next: res.body['@odata.nextLink'] } : {}) },
            fileItems,
          );
          expect([first.slice(0, 200), crawled]).toEqual([first.slice(0, 200), expected(o, clauses, all)]);
        }
      }),
      {
        numRuns: kind === 'sqlite' ? 25 : 12,
        examples: [
          // A deep folder of about 3,000 bytes and 2,900 bytes of CJK among short ids, read one per page with a long filter and select.
          [
            [
              {
                source: 'fs',
                files: [
                  { nativeId: `${'a-deeply-named-folder/'.repeat(136)}plan.pdf`, binary: true, run: 0 },
                  { nativeId: 'a.html', binary: false, run: 1 },
                  { nativeId: `${'中'.repeat(966)}.txt`, binary: true, run: 2 },
                  { nativeId: 'z.html', binary: false, run: 0 },
                ],
                groups: [`team/${'x'.repeat(1100)}`, 'eng'],
                user: 'ana',
              },
            ],
            [
              {
                top: 1,
                orderby: 'last_modified_datetime',
                clauses: [
                  { kind: 'modified', op: 'ge', at: runTime(0), spelling: 'Z' },
                  { kind: 'status', value: 'active' },
                ],
                filterLength: 2048,
                parenthesised: true,
                select: ['name', 'content'],
                selectLength: 1024,
              },
            ],
            'python',
          ],
          // Ids just either side of the line, from the longest adapter name; one ends in a space.
          [
            [
              {
                source: 'a-freshly-scaffolded-source-name',
                files: [
                  { nativeId: 'a ', binary: false, run: 0 },
                  { nativeId: 'x'.repeat(1024 - 40), binary: true, run: 1 },
                  { nativeId: 'x'.repeat(1024 - 39), binary: false, run: 2 },
                ],
                groups: [`g-${'é'.repeat(164)}`],
                user: '7',
              },
            ],
            [{ top: 1, orderby: 'id desc', clauses: [{ kind: 'id', index: 1 }], filterLength: 0, parenthesised: false, select: [], selectLength: 0 }],
            'fetch',
          ],
        ],
      },
    );
  }, 240_000);
});
