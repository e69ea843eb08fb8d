import pino from 'pino';
import type { Attributes, UserRecord } from '../../src/adapters/adapter';
import { EffectiveAccess } from '../../src/conformance/access/effective-access';
import { AccessExplorer, type FileAnswer, type UserAnswer } from '../../src/console/access-explorer';
import { parsePolicy } from '../../src/policies/load-policy';
import { runSync } from '../../src/sync/run-sync';
import { crawlAccess } from '../helpers/crawl-access';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const POLICY = parsePolicy(`version: 1
rules:
  - name: dept-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-handbooks
    roles: [editor]
    allow: doc.kind == 'handbook'
`);

const user = (nativeId: string, attributes: Attributes, roles: string[] = [], active = true): UserRecord => ({
  nativeId,
  email: `${nativeId}@example.com`,
  fullName: nativeId,
  active,
  attributes,
  roles,
});

/** A source with a policy, nested groups in a cycle, a deleted file and an entry naming nobody. */
function seed(policySource: ScriptedSource, plain: ScriptedSource): void {
  policySource
    .putUser(user('u1', { department: 'eng', clearance: 3 }))
    .putUser(user('u2', { department: 'eng', clearance: 1 }))
    .putUser(user('u3', { department: 'ops', clearance: 2 }, ['editor']))
    .putUser(user('u6', { department: 'eng', clearance: 3 }, [], false));
  const docs: Array<[string, Attributes]> = [
    ['f1', { department: 'eng', level: 1 }],
    ['f2', { department: 'eng', level: 2 }],
    ['f4', { department: 'ops', level: 3, kind: 'handbook' }],
  ];
  for (const [id, attributes] of docs) {
    // f1 also names u6, whose account here is inactive (the person is active through another source).
    policySource.binary(id, Buffer.from(`%PDF-1.4 ${id}`), `v1-${id}`, id === 'f1' ? [{ type: 'USER', nativeId: 'u6' }] : []);
    const file = policySource.files.get(id);
    if (file) policySource.files.set(id, { ...file, attributes });
  }
  plain
    .putUser(user('p1', {}))
    .putUser(user('p2', {}))
    .putUser(user('u1', {}))
    .putUser(user('u6', {}))
    .putGroup({
      nativeId: 'a',
      name: 'A',
      members: [
        { type: 'GROUP', nativeId: 'b' },
        { type: 'USER', nativeId: 'p1' },
      ],
    })
    .putGroup({
      nativeId: 'b',
      name: 'B',
      members: [
        { type: 'GROUP', nativeId: 'a' },
        { type: 'USER', nativeId: 'p2' },
      ],
    })
    .html('cyclic', '<p>x</p>', [
      { type: 'GROUP', nativeId: 'b' },
      { type: 'USER', nativeId: 'ghost' },
      { type: 'GROUP', nativeId: 'nowhere' },
    ])
    .html('gone', '<p>y</p>', [{ type: 'GROUP', nativeId: 'a' }])
    .html('mine', '<p>z</p>', [{ type: 'USER', nativeId: 'u1' }]);
}

const shown = (p: { entry: { type: string; id: string }; groups: Array<{ id: string }> }) =>
  [`${p.entry.type} ${p.entry.id}`, ...p.groups.map((g) => g.id)].join(' > ');

describe.each(databaseKinds)('access explorer over a policy, group cycles, deleted files (%s)', (kind) => {
  let gw: TestGateway;
  let conformance: EffectiveAccess;
  let explorer: AccessExplorer;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    const policySource = new ScriptedSource('hr');
    const plain = new ScriptedSource('wiki');
    seed(policySource, plain);
    const deps = { db: gw.database.db, blobs: gw.blobs, logger: pino({ level: 'silent' }) };
    await runSync(policySource, deps, { policy: POLICY });
    await runSync(plain, deps, {});
    plain.remove('file', 'gone');
    await runSync(plain, deps, { allowMassDelete: true });
    conformance = new EffectiveAccess(await crawlAccess(gw.url, TEST_KEYS[0]));
    explorer = new AccessExplorer(gw.database.db, { hr: POLICY });
  });
  afterAll(() => gw?.close());

  it('equals conformance for every file and every user', async () => {
    for (const fileId of conformance.fileIds) {
      const answer = (await explorer.whoCanSee(fileId)) as FileAnswer;
      expect([fileId, answer.users.map((u) => u.email).sort()]).toEqual([fileId, (conformance.whoCanSee(fileId)?.users ?? []).map((u) => u.email).sort()]);
    }
    for (const u of conformance.users) {
      const answer = (await explorer.whatCanSee(u.id)) as UserAnswer;
      expect([u.email, answer.files.map((f) => f.id).sort()]).toEqual([u.email, (conformance.whatCanSee(u.id)?.files ?? []).map((f) => f.id).sort()]);
    }
  });

  it('names the policy rule behind a grant through the groups the policy compiled', async () => {
    const u1 = (await explorer.whatCanSee('u1@example.com')) as UserAnswer;
    const f2 = u1.files.find((f) => f.id === 'hr:f2');
    expect(f2?.path.groups.map((g) => g.id)).toEqual([expect.stringMatching(/^hr:policy-d-/), expect.stringMatching(/^hr:policy-u-/)]);
    expect(f2?.path.policy).toMatchObject({ rule: 'dept-cleared', because: expect.stringContaining('user.clearance (3) >= doc.level (2)') });
    const handbook = (await explorer.whoCanSee('hr:f4')) as FileAnswer;
    expect(handbook.users.map((u) => [u.email, u.path.policy?.rule])).toEqual([['u3@example.com', 'editors-handbooks']]);
    // Without the policy file the chain still says a policy compiled it.
    const bare = (await new AccessExplorer(gw.database.db).whatCanSee('u1@example.com')) as UserAnswer;
    expect(bare.files.find((f) => f.id === 'hr:f2')?.path.policy).toEqual({ policy: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('walks a cycle of groups once, lists entries naming nobody, and shows a deleted file to nobody', async () => {
    const cyclic = (await explorer.whoCanSee('wiki:cyclic')) as FileAnswer;
    expect(cyclic.users.map((u) => [u.email, shown(u.path)])).toEqual([
      ['p1@example.com', 'GROUP wiki:b > wiki:b > wiki:a'],
      ['p2@example.com', 'GROUP wiki:b > wiki:b'],
    ]);
    expect(cyclic.unresolved).toEqual(expect.arrayContaining([{ type: 'GROUP', id: 'wiki:nowhere' }]));
    const gone = (await explorer.whoCanSee('wiki:gone')) as FileAnswer;
    expect(gone.file.status).toBe('deleted');
    expect([gone.users, gone.usersPage.total]).toEqual([[], 0]);
    const p1 = (await explorer.whatCanSee('p1@example.com')) as UserAnswer;
    expect(p1.files.map((f) => f.id)).toEqual(['wiki:cyclic']);
  });

  it("grants nothing through a person's inactive account, and shows it apart", async () => {
    const u6 = (await explorer.whatCanSee('u6@example.com')) as UserAnswer;
    expect([u6.user.active, u6.accounts]).toEqual([
      true,
      [
        { id: 'hr:u6', source: 'hr', active: false },
        { id: 'wiki:u6', source: 'wiki', active: true },
      ],
    ]);
    expect(u6.files.map((f) => f.id)).toEqual([]);
    const f1 = (await explorer.whoCanSee('hr:f1')) as FileAnswer;
    expect(f1.users.map((u) => u.email)).not.toContain('u6@example.com');
    expect(f1.inactiveAccounts.map((a) => [a.id, shown(a.path)])).toEqual([['hr:u6', 'USER hr:u6']]);
  });

  it('joins the accounts of one person across sources', async () => {
    const u1 = (await explorer.whatCanSee('u1@example.com')) as UserAnswer;
    expect(u1.accounts.map((a) => a.id)).toEqual(['hr:u1', 'wiki:u1']);
    expect(shown(u1.files.find((f) => f.id === 'wiki:mine')?.path ?? { entry: { type: '', id: '' }, groups: [] })).toBe(`USER ${u1.user.id}`);
  });
});
