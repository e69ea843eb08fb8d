import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createFilesystemAdapter } from '../../../src/adapters/filesystem';
import { runSync, type SyncOptions, type SyncSummary } from '../../../src/sync/run-sync';
import { emailsWhoCanSee } from '../../helpers/crawl-access';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { makeTree, removeTrees, writeFiles } from './tree-fixture';

/**
 * The black-box ACL scenarios of the failure-mode research, for the filesystem adapter: a tree
 * with a directory file and access sidecars, synced through the real engine into the SQLite
 * staging of a gateway on loopback and crawled as the platform crawls it. Edits keep the edited
 * file's size and modification time where the scenario is "no timestamp moved".
 */
const KEY = TEST_KEYS[0];
const logger = pino({ level: 'silent' });

const directory = (users: string[], groups: string[]) =>
  `users:\n${users.map((u) => `  - ${u}\n`).join('')}groups:\n${groups.map((g) => `  - ${g}\n`).join('')}`;
const USERS = [
  '{ id: ana, email: Ana@Example.com, full_name: Ana, active: true }',
  '{ id: bo, email: bo@example.com, full_name: Bo, active: true }',
  '{ id: cy, email: cy@example.com, full_name: Cy, active: true }',
  '{ id: di, email: di@example.com, full_name: Di, active: true }',
];
// eng and core hold each other: a cycle.
const GROUPS = [
  '{ id: eng, name: Engineering, members: [{ user: ana }, { group: core }] }',
  '{ id: core, name: Core, members: [{ user: bo }, { group: eng }] }',
  '{ id: ops, name: Ops, members: [{ user: cy }] }',
];

/** Rewrites `rel` keeping its size and modification time (a timestamp-preserving copy, `touch -r`). */
function rewriteInPlace(root: string, rel: string, edit: (text: string) => string): void {
  const file = path.join(root, rel);
  const { mtime, atime, size } = fs.statSync(file);
  const text = edit(fs.readFileSync(file, 'utf8'));
  expect(Buffer.byteLength(text)).toBe(size);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, atime, mtime);
}

describe('filesystem source: ACL scenarios through the engine and the gateway', () => {
  let gw: TestGateway;
  let root: string;
  let clock: number;

  const sync = async (mode: SyncOptions['mode']): Promise<SyncSummary> => {
    clock += 3_600_000;
    const adapter = createFilesystemAdapter({ root, sourceName: 'fs', baseUrl: 'https://kb.example/docs' });
    return runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) }, { mode });
  };
  const ok = (summary: SyncSummary) => expect([summary.status, summary.failures]).toEqual(['succeeded', []]);
  const who = async (rel: string) => (await emailsWhoCanSee(gw.url, KEY, `fs:${rel}`)).map((e) => e.toLowerCase());
  const permissions = async (rel: string) =>
    (
      (await gw.get(`/v1/files/${encodeURIComponent(`fs:${rel}`)}/permissions`, { Authorization: `Bearer ${KEY}` })).body as {
        value: { permissions: unknown[] };
      }
    ).value.permissions;
  const members = async (group: string) =>
    ((await gw.get(`/v1/groups/fs:${group}/members?$top=50`, { Authorization: `Bearer ${KEY}` })).body as { value: Array<{ type: string; id: string }> }).value;

  beforeEach(async () => {
    clock = Date.parse('2026-05-01T00:00:00Z');
    gw = await startTestGateway('sqlite');
    root = makeTree({
      '_directory.yaml': directory(USERS, GROUPS),
      'pub/_access.yaml': 'public: true\n',
      'pub/a.html': '<h1>A</h1>',
      'eng/_access.yaml': 'groups: [eng]\n',
      'eng/plan.html': '<h1>Plan</h1>',
      'ops/_access.yaml': 'groups: [ops]\n',
      'ops/run.html': '<h1>Run</h1>',
      'ana/_access.yaml': 'users: [ana]\n',
      'ana/diary.html': '<h1>Diary</h1>',
      'none/_access.yaml': '{}\n',
      'none/x.html': '<h1>X</h1>',
      'top.html': '<h1>No sidecar above</h1>',
    });
  });
  afterEach(async () => {
    await gw?.close();
    removeTrees();
  });

  it('scenarios 6, 12, 19: a group cycle syncs with direct members; empty or missing rules serve nobody; two full runs serve the same', async () => {
    ok(await sync('full'));
    expect((await members('eng')).map((m) => `${m.type} ${m.type === 'GROUP' ? m.id : 'user'}`).sort()).toEqual(['GROUP fs:core', 'USER user']);
    expect(await who('eng/plan.html')).toEqual(['ana@example.com', 'bo@example.com']);
    expect(await who('none/x.html')).toEqual([]);
    expect(await permissions('none/x.html')).toEqual([]);
    expect(await who('top.html')).toEqual([]);
    const first = await Promise.all(['eng/plan.html', 'ops/run.html', 'pub/a.html', 'ana/diary.html'].map(permissions));
    ok(await sync('full'));
    expect(await Promise.all(['eng/plan.html', 'ops/run.html', 'pub/a.html', 'ana/diary.html'].map(permissions))).toEqual(first);
  });

  it('scenario 7: a membership-only change, the directory keeping its size and timestamp, is revoked by the next incremental run', async () => {
    ok(await sync('full'));
    expect(await who('ops/run.html')).toEqual(['cy@example.com']);
    // cy leaves ops and di joins it: same length names, same size, same mtime.
    rewriteInPlace(root, '_directory.yaml', (text) =>
      text.replace('{ id: ops, name: Ops, members: [{ user: cy }] }', '{ id: ops, name: Ops, members: [{ user: di }] }'),
    );
    const summary = await sync('incremental');
    ok(summary);
    expect(summary.counts).toMatchObject({ changed: 0 });
    expect(await who('ops/run.html')).toEqual(['di@example.com']);
  });

  it('scenario 8: an access-only change, the sidecar keeping its size and timestamp, is applied by the incremental run and kept by a full run', async () => {
    ok(await sync('full'));
    rewriteInPlace(root, 'ops/_access.yaml', (text) => text.replace('[ops]', '[eng]'));
    ok(await sync('incremental'));
    expect(await who('ops/run.html')).toEqual(['ana@example.com', 'bo@example.com']);
    ok(await sync('full'));
    expect(await who('ops/run.html')).toEqual(['ana@example.com', 'bo@example.com']);
  });

  it('scenario 2: a file granted to someone the directory lacks is not served; once they are added, the file untouched, it is theirs', async () => {
    writeFiles(root, { 'zed/_access.yaml': 'users: [zed]\n', 'zed/z.html': '<h1>Z</h1>' });
    const first = await sync('full');
    expect(first.failures).toEqual([expect.stringContaining('zed')]);
    expect(await gw.database.db('files').where({ id: 'fs:zed/z.html' }).first()).toBeUndefined();
    writeFiles(
      root,
      { '_directory.yaml': directory([...USERS, '{ id: zed, email: zed@example.com, full_name: Zed, active: true }'], GROUPS) },
      new Date('2025-02-01T00:00:00Z'),
    );
    ok(await sync('incremental'));
    expect(await who('zed/z.html')).toEqual(['zed@example.com']);
  });

  it('scenario 3: a deactivated user is served Inactive and sees nothing; reactivated, their access is back', async () => {
    ok(await sync('full'));
    const state = async () => ((await gw.database.db('people').where({ email: 'cy@example.com' }).first('state')) as { state: string }).state;
    const withCy = (active: boolean, minutes: number) =>
      writeFiles(
        root,
        {
          '_directory.yaml': directory(
            USERS.map((u) => (u.includes('id: cy') ? u.replace('active: true', `active: ${active}`) : u)),
            GROUPS,
          ),
        },
        new Date(Date.parse('2025-02-01T00:00:00Z') + minutes * 60_000),
      );
    withCy(false, 1);
    ok(await sync('incremental'));
    expect(await state()).toBe('Inactive');
    expect(await who('ops/run.html')).toEqual([]);
    expect(await who('pub/a.html')).not.toContain('cy@example.com');
    withCy(true, 2);
    ok(await sync('incremental'));
    expect(await state()).toBe('Active');
    expect(await who('ops/run.html')).toEqual(['cy@example.com']);
  });

  it('scenario 11: only `public: true` is everyone; a group whose id is "*" or "public" grants its members only', async () => {
    writeFiles(root, {
      '_directory.yaml': directory(USERS, [
        ...GROUPS,
        "{ id: '*', name: Star, members: [{ user: di }] }",
        '{ id: public, name: Public, members: [{ user: cy }] }',
      ]),
      'star/_access.yaml': "groups: ['*', public]\n",
      'star/s.html': '<h1>S</h1>',
    });
    ok(await sync('full'));
    expect(await who('star/s.html')).toEqual(['cy@example.com', 'di@example.com']);
    expect(await permissions('star/s.html')).not.toContainEqual(expect.objectContaining({ id: '*' }));
    expect(await permissions('pub/a.html')).toEqual([{ type: 'GROUP', id: '*', action: 'VIEW' }]);
  });

  // Scenario 12, fail closed: a rule naming someone the directory lacks fails its files (retried
  // next run), and the failure carries what the rule still grants for certain (its known
  // principals): the engine narrows the staged access list to that, never widening it. So an edit
  // that withdraws readers and names one unknown user (a typo) stops serving the withdrawn readers.
  it('scenario 12: a sidecar edited to withdraw a reader and name someone unknown stops serving the withdrawn reader', async () => {
    ok(await sync('full'));
    expect(await who('ops/run.html')).toEqual(['cy@example.com']);
    writeFiles(root, { 'ops/_access.yaml': 'users: [zed]\n' }, new Date('2025-02-01T00:00:00Z'));
    const summary = await sync('incremental');
    expect([summary.status, summary.failures]).toEqual(['succeeded', [expect.stringContaining('unknown user "zed"')]]);
    expect(await who('ops/run.html')).toEqual([]);
    await sync('full');
    expect(await who('ops/run.html')).toEqual([]);
  });

  it('scenario 15: a new account re-using a removed user’s email (another case) inherits nothing of theirs, though a sidecar still names the old one', async () => {
    ok(await sync('full'));
    expect(await who('ana/diary.html')).toEqual(['ana@example.com']);
    writeFiles(
      root,
      {
        '_directory.yaml': directory(
          [...USERS.slice(1), '{ id: ana2, email: ANA@example.COM, full_name: Another Ana, active: true }'],
          GROUPS.map((g) => g.replace('{ user: ana }', '{ user: ana2 }')),
        ),
      },
      new Date('2025-02-01T00:00:00Z'),
    );
    const summary = await sync('incremental');
    // The sidecar names ana, whom the directory no longer has: that file fails and its staged list narrows to what the rule still grants: nobody.
    expect(summary.failures).toEqual([expect.stringContaining('ana/diary.html')]);
    expect(await who('ana/diary.html')).toEqual([]);
    expect(await who('eng/plan.html')).toEqual(['ana@example.com', 'bo@example.com']);
    const full = await sync('full');
    expect(full.failures).toHaveLength(1);
    expect(await who('ana/diary.html')).toEqual([]);
  });

  it('scenario 16: 10,001 users in one group, more than 10 groups, a sidecar granting 205 users: every count served', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => `m${i}`);
    writeFiles(root, {
      '_directory.yaml': directory(
        [...USERS, ...many.map((id) => `{ id: ${id}, email: ${id}@example.com, full_name: M, active: true }`)],
        [
          ...GROUPS,
          `{ id: crowd, name: Crowd, members: [${many.map((id) => `{ user: ${id} }`).join(', ')}] }`,
          ...Array.from({ length: 12 }, (_, i) => `{ id: g${i}, name: G${i}, members: [{ user: m${i} }] }`),
        ],
      ),
      'wide/_access.yaml': `users: [${many.slice(0, 205).join(', ')}]\n`,
      'wide/w.html': '<h1>W</h1>',
    });
    ok(await sync('full'));
    const count = (table: string, where: Record<string, string>) =>
      gw.database
        .db(table)
        .where(where)
        .count({ n: '*' })
        .then((r) => Number((r[0] as { n: number }).n));
    expect(await count('group_members', { group_id: 'fs:crowd' })).toBe(10_001);
    expect(await count('groups', { source: 'fs' })).toBe(3 + 1 + 12);
    expect(await count('file_permissions', { file_id: 'fs:wide/w.html' })).toBe(205);
    expect(await count('people', {})).toBe(4 + 10_001);
  }, 120_000);
});
