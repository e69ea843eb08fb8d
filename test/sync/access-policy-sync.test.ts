import pino from 'pino';
import type { Attributes, UserRecord } from '../../src/adapters/adapter';
import { crawlGateway } from '../../src/conformance/crawl/crawl-gateway';
import { CrawlRecorder } from '../../src/conformance/crawl/crawl-recorder';
import { accessInputFromCrawl, EffectiveAccess } from '../../src/conformance/access/effective-access';
import { GatewayClient } from '../../src/conformance/crawl/gateway-client';
import { RateLimitPacer } from '../../src/conformance/crawl/rate-limit-pacer';
import { policyGrants } from '../../src/policies/evaluate-policy';
import { parsePolicy } from '../../src/policies/load-policy';
import type { Policy } from '../../src/policies/policy-types';
import { runSync } from '../../src/sync/run-sync';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });

const POLICY_A = parsePolicy(`version: 1
rules:
  - name: dept-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-handbooks
    roles: [editor]
    allow: doc.kind == 'handbook'
`);
const POLICY_B = parsePolicy(`version: 1
rules:
  - name: dept-only
    allow: user.department == doc.department
`);

const user = (nativeId: string, attributes: Attributes, roles: string[] = [], active = true): UserRecord => ({
  nativeId,
  email: `${nativeId}@example.com`,
  fullName: nativeId,
  active,
  attributes,
  roles,
});

function seed(source: ScriptedSource): void {
  source
    .putUser(user('u1', { department: 'eng', clearance: 3 }))
    .putUser(user('u2', { department: 'eng', clearance: 1 }))
    .putUser(user('u3', { department: 'ops', clearance: 2 }, ['editor']))
    .putUser(user('u4', { department: 'ops', clearance: 3 }))
    .putUser(user('u5', {}))
    .putUser(user('u6', { department: 'eng', clearance: 3 }, [], false))
    .putUser(user('u7', { department: 'hr', clearance: 9 }))
    .putUser(user('u9', { department: 'eng', clearance: 3 }, ['viewer']));
  const docs: Array<[string, Attributes]> = [
    ['f1', { department: 'eng', level: 1 }],
    ['f2', { department: 'eng', level: 2 }],
    ['f3', { department: 'ops', level: 3 }],
    ['f4', { department: 'ops', level: 1, kind: 'handbook' }],
    ['f5', { kind: 'handbook' }],
    ['f6', { department: 'eng', level: 1 }],
    ['f7', {}],
    ['f8', { department: 'hr', level: 1 }],
  ];
  for (const [id, attributes] of docs) {
    source.binary(id, Buffer.from(`%PDF-1.4 ${id}`), `v1-${id}`, id === 'f7' ? [{ type: 'USER', nativeId: 'u5' }] : []);
    const file = source.files.get(id);
    if (file) source.files.set(id, { ...file, attributes });
  }
}

describe.each(databaseKinds)('syncing a source with an access policy (%s staging)', (kind) => {
  let gw: TestGateway;
  let source: ScriptedSource;
  const sync = (policy: Policy) => runSync(source, { db: gw.database.db, blobs: gw.blobs, logger }, { policy });

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    source = new ScriptedSource('hr-db');
    seed(source);
  });
  afterAll(async () => gw?.close());

  /** Crawls the gateway like the platform and compares every (user, document) pair with the policy. */
  async function expectExactAccess(policy: Policy): Promise<EffectiveAccess> {
    const client = new GatewayClient({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      authForm: 'bearer',
      concurrency: 2,
      timeoutMs: 10_000,
      recorder: new CrawlRecorder(),
      pacer: new RateLimitPacer(),
    });
    const crawl = await crawlGateway(client, { concurrency: 2, skipDownloads: true });
    client.close();
    const access = new EffectiveAccess(accessInputFromCrawl(crawl));
    const wrong: string[] = [];
    for (const file of source.files.values()) {
      for (const u of source.users.values()) {
        const explicit = file.access.some((e) => e.type === 'USER' && e.nativeId === u.nativeId);
        const expected = explicit || (u.active && policyGrants(policy, u, file));
        // The gateway serves people, found by email (one person, one user).
        const granted = access.canSee(u.email, `hr-db:${file.nativeId}`);
        if (granted !== expected) wrong.push(`${granted ? 'over' : 'under'}-exposed: ${u.nativeId} on ${file.nativeId}`);
      }
    }
    expect(wrong).toEqual([]);
    return access;
  }

  it('compiles the policy into groups and access lists the platform resolves exactly (0 over-, 0 under-exposed)', async () => {
    const summary = await sync(POLICY_A);
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'full' });
    expect(source.opens).toBe(8);
    await expectExactAccess(POLICY_A);
    // 7 active users in 6 classes (u1 and u9 read alike: the policy ignores the viewer role; u6 is
    // inactive), 8 documents in 7 classes (f1 and f6 alike).
    const groups = await gw.get('/v1/groups?$top=100', { Authorization: `Bearer ${TEST_KEYS[0]}` });
    expect(groups.body.value.filter((g: { id: string }) => g.id.startsWith('hr-db:policy-u-'))).toHaveLength(6);
    expect(groups.body.value.filter((g: { id: string }) => g.id.startsWith('hr-db:policy-d-'))).toHaveLength(7);
  });

  it('follows attribute changes in an incremental run, reading the other users back from staging', async () => {
    const before = await gw.get('/v1/groups?$top=100', { Authorization: `Bearer ${TEST_KEYS[0]}` });
    source.putUser(user('u2', { department: 'ops', clearance: 1 }));
    source.putUser(user('u7', { department: 'eng', clearance: 1 }));
    source.putUser(user('u4', { department: 'ops', clearance: 3 }, [], false));
    source.putUser(user('u8', { department: 'eng', clearance: 2 }, ['editor']));
    const f2 = source.files.get('f2');
    if (f2) source.putFile({ ...f2, attributes: { department: 'eng', level: 3 } });
    const summary = await sync(POLICY_A);
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    expect(source.opens).toBe(8);
    await expectExactAccess(POLICY_A);
    // The class u7 was alone in (hr, 9) emptied: its group is gone, not left with a stale member.
    const after = await gw.get('/v1/groups?$top=100', { Authorization: `Bearer ${TEST_KEYS[0]}` });
    const ids = (r: typeof after) => new Set<string>(r.body.value.map((g: { id: string }) => g.id));
    const gone = [...ids(before)].filter((id) => !ids(after).has(id));
    expect(gone.length).toBeGreaterThan(0);
    // Unchanged classes kept their ids.
    expect([...ids(before)].filter((id) => ids(after).has(id)).length).toBeGreaterThan(5);
  });

  it('re-syncs access for a changed policy without downloading any content again', async () => {
    const runsBefore = (await gw.database.db('sync_runs').where({ source: 'hr-db' }).count({ n: '*' }).first()) as { n: number | string };
    const summary = await sync(POLICY_B);
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'full' });
    expect(summary.fellBackToFull).toMatch(/access policy of 'hr-db' changed/);
    // Planned full up front: one run recorded, no failed incremental run before it.
    const runs = (await gw.database.db('sync_runs').where({ source: 'hr-db' }).orderBy('id').select('mode', 'status')) as Array<{
      mode: string;
      status: string;
    }>;
    expect(runs.slice(Number(runsBefore.n))).toEqual([{ mode: 'full', status: 'succeeded' }]);
    expect(source.opens).toBe(8);
    await expectExactAccess(POLICY_B);
    const again = await sync(POLICY_B);
    expect(again).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    expect(again.counts).toMatchObject({ added: 0, changed: 0 });
  });

  it("keeps running incrementally beside a source's own groups named policy-… (not a synthesized prefix)", async () => {
    source.putGroup({ nativeId: 'policy-team', name: 'Policy team', members: [{ type: 'USER', nativeId: 'u1' }] });
    source.putGroup({ nativeId: 'Policy-U-board', name: 'Board', members: [{ type: 'USER', nativeId: 'u3' }] });
    expect(await sync(POLICY_B)).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    const next = await sync(POLICY_B);
    expect(next).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    expect(next.fellBackToFull).toBeUndefined();
    await expectExactAccess(POLICY_B);
  });
});
