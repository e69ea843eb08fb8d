import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { reconcilesAccess, type AccessEntry, type GroupRecord } from '../../../src/adapters/adapter';
import { createRestAdapter, parseRestManifest, restConfigFromEnv } from '../../../src/adapters/rest';
import { runSync, type SyncSummary } from '../../../src/sync/run-sync';
import { ScriptedSource } from '../../helpers/scripted-adapter';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { QUICK_RETRIES } from '../../helpers/quick-retries';
import { accessByEmail, crawlAccess, GATEWAY_MANIFEST, gatewayAdapter, silent } from './rest-gateway-fixture';

/**
 * The black-box ACL scenarios of the failure-mode research, for REST manifests: an upstream
 * gateway on loopback (its staging fed by a scripted source the tests change between runs) is
 * the REST API; the shipped content-gateway manifest syncs it through the real engine into a
 * mirror gateway's SQLite staging, and both are crawled as the platform crawls them. Faults are
 * injected on the wire (a group listed then 404, 429s and 5xx inside a member listing).
 */
const KEY = TEST_KEYS[0];
const html = (id: string, access: AccessEntry[]) => ({ id, access });
const user = (id: string): AccessEntry => ({ type: 'USER', nativeId: id });
const group = (id: string): AccessEntry => ({ type: 'GROUP', nativeId: id });
const EVERYONE: AccessEntry = { type: 'EVERYONE' };

type Crawl = Awaited<ReturnType<typeof crawlAccess>>;

/** Every file an email sees on the mirror that the upstream does not let it see. */
function overExposed(upstream: Crawl, mirrored: Crawl): string[] {
  const allowed = accessByEmail(upstream);
  const seen = accessByEmail(mirrored, 'upstream:');
  return Object.entries(seen).flatMap(([email, files]) => files.filter((f) => !(allowed[email] ?? []).includes(f)).map((f) => `${email} -> ${f}`));
}

/** A fetch that answers `fault(url)` instead of the upstream where it says so (the wire, not the server, misbehaves). */
function faulty(fault: (url: URL, path: string) => Response | undefined): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const path = decodeURIComponent(url.pathname);
    if (path.endsWith('/members')) url.searchParams.set('$top', '1');
    return fault(url, path) ?? globalThis.fetch(url, init);
  };
}
const error = (status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ error: { code: status === 404 ? 'NOT_FOUND' : 'INTERNAL_SERVER_ERROR', message: 'injected' } }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

describe('REST manifest (content-gateway): ACL scenarios against an upstream gateway on loopback', () => {
  let up: TestGateway;
  let mirror: TestGateway;
  let source: ScriptedSource;
  let clock: number;

  const publish = async () => {
    clock += 60_000;
    const summary = await runSync(source, { db: up.database.db, blobs: up.blobs, logger: silent, now: () => new Date(clock) }, { mode: 'full' });
    expect(summary.status).toBe('succeeded');
  };
  const mirrorSync = (fetchImpl?: typeof fetch, signal?: AbortSignal, batchSize?: number): Promise<SyncSummary> => {
    clock += 60_000;
    return runSync(
      gatewayAdapter(up.url, KEY, fetchImpl ? { fetch: fetchImpl } : {}),
      { db: mirror.database.db, blobs: mirror.blobs, logger: silent, now: () => new Date(clock), ...(signal ? { signal } : {}) },
      { mode: 'full', ...(batchSize ? { batchSize } : {}) },
    );
  };
  const ok = (summary: SyncSummary) => expect([summary.status, summary.failures]).toEqual(['succeeded', []]);
  const crawls = async () => ({ upstream: await crawlAccess(up.url, KEY), mirrored: await crawlAccess(mirror.url, KEY) });
  /** What each email sees on the mirror (ids without the mirror's prefix), with the upstream's truth beside it. */
  const both = async () => {
    const { upstream, mirrored } = await crawls();
    return { truth: accessByEmail(upstream), served: accessByEmail(mirrored, 'upstream:'), over: overExposed(upstream, mirrored), mirrored };
  };
  const putGroup = (nativeId: string, members: AccessEntry[]) => source.putGroup({ nativeId, name: nativeId, members: members as GroupRecord['members'] });

  beforeEach(async () => {
    clock = Date.parse('2026-06-01T00:00:00Z');
    up = await startTestGateway('sqlite');
    mirror = await startTestGateway('sqlite');
    source = new ScriptedSource('up');
    source
      .putUser({ nativeId: 'ana', email: 'Ana@Example.com', fullName: 'Ana', active: true })
      .putUser({ nativeId: 'bo', email: 'bo@example.com', fullName: 'Bo', active: true })
      .putUser({ nativeId: 'cy', email: 'cy@example.com', fullName: 'Cy', active: true })
      .putUser({ nativeId: 'di', email: 'di@example.com', fullName: 'Di', active: true });
    // eng and core hold each other: a cycle.
    putGroup('eng', [user('ana'), group('core')]);
    putGroup('core', [user('bo'), user('cy'), group('eng')]);
    putGroup('ops', [user('cy'), user('di')]);
    for (const f of [
      html('f-eng', [group('eng')]),
      html('f-ops', [group('ops')]),
      html('f-pub', [EVERYONE]),
      html('f-ana', [user('ana')]),
      html('f-none', []),
      html('f-zed', [user('zed')]),
    ])
      source.html(f.id, `<h1>${f.id}</h1>`, f.access);
    await publish();
  });
  afterEach(async () => {
    await mirror?.close();
    await up?.close();
  });

  it('scenarios 2, 6, 12, 19: a cycle, an empty list and a grant to someone not listed yet, served as the upstream does; twice the same', async () => {
    ok(await mirrorSync());
    const first = await both();
    expect(first.served).toEqual(first.truth);
    expect(first.served['bo@example.com']).toEqual(['up:f-eng', 'up:f-pub']);
    // Members stay direct: the cycle is two GROUP entries, never flattened.
    const eng = first.mirrored.groups.find((g) => g.id === 'upstream:up:eng');
    expect(eng?.members?.entries.filter((m) => m.type === 'GROUP').map((m) => m.id)).toEqual(['upstream:up:core']);
    // Nobody sees the file with an empty list, nor the one granted to zed, whom no listing has.
    expect(Object.values(first.served).flat()).not.toContain('up:f-none');
    expect(Object.values(first.served).flat()).not.toContain('up:f-zed');
    ok(await mirrorSync());
    const second = await crawls();
    expect(second.mirrored).toEqual(first.mirrored);
    for (const f of second.mirrored.files) expect(new Set(f.permissions.map((p) => `${p.type} ${p.id}`)).size).toBe(f.permissions.length);
    // zed appears upstream: the file, unchanged, is now theirs on the mirror too.
    source.putUser({ nativeId: 'zed', email: 'zed@example.com', active: true });
    await publish();
    ok(await mirrorSync());
    const third = await both();
    expect(third.served['zed@example.com']).toEqual(['up:f-pub', 'up:f-zed']);
    expect(third.served).toEqual(third.truth);
  });

  it('scenarios 7, 8, 10: a membership-only change, an access-only change and the wildcard withdrawn (no file modified) are revoked by the next run', async () => {
    ok(await mirrorSync());
    expect((await both()).served['bo@example.com']).toContain('up:f-eng');
    putGroup('core', [user('cy'), group('eng')]);
    source.html('f-ana', '<h1>f-ana</h1>', [user('di')]);
    source.html('f-pub', '<h1>f-pub</h1>', [user('cy')]);
    await publish();
    const served = (id: string) => up.database.db('files').where({ id }).first('modified_at');
    const before = await served('up:f-ana');
    ok(await mirrorSync());
    const after = await both();
    // f-pub is no longer everyone's (scenario 10): only cy's.
    expect(after.served['bo@example.com']).toEqual([]);
    expect(after.served['cy@example.com']).toContain('up:f-pub');
    expect(after.served['ana@example.com']).not.toContain('up:f-ana');
    expect(after.served['di@example.com']).toContain('up:f-ana');
    expect(after.served).toEqual(after.truth);
    // The upstream moved only the permissions' timestamp: the file itself did not change.
    expect(await served('up:f-ana')).toEqual(before);
  });

  it('scenario 8, incremental_sync listed_version: an access list read by request that changes while the listed record does not is revoked by the next incremental run', async () => {
    // The shipped manifest, its documents read incrementally by listed version: the listing carries no access list (it is a request per file).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-manifest-'));
    const manifest = path.join(dir, 'content-gateway-listed.yaml');
    fs.writeFileSync(
      manifest,
      fs.readFileSync(GATEWAY_MANIFEST, 'utf8').replace('\n  documents:\n', '\n  documents:\n    incremental_sync: { type: listed_version }\n'),
    );
    try {
      const env = { REST_MANIFEST: manifest, UPSTREAM_GATEWAY_URL: up.url, UPSTREAM_GATEWAY_KEY: KEY };
      const config = restConfigFromEnv(env);
      const sync = (mode: 'full' | 'auto') => {
        clock += 60_000;
        const adapter = createRestAdapter({ name: config.name, loaded: config.loaded, env, retryPolicy: QUICK_RETRIES });
        return runSync(adapter, { db: mirror.database.db, blobs: mirror.blobs, logger: silent, now: () => new Date(clock) }, { mode });
      };
      ok(await sync('full'));
      expect((await both()).served['ana@example.com']).toContain('up:f-ana');
      // Upstream, f-ana is now di's: its permissions change, the file and its listing do not.
      const listed = async () =>
        ((await up.get('/v1/files?$top=50', { Authorization: `Bearer ${KEY}` })).body as { value: Array<{ id: string }> }).value.find(
          (f) => f.id === 'up:f-ana',
        );
      const before = await listed();
      source.html('f-ana', '<h1>f-ana</h1>', [user('di')]);
      await publish();
      expect(await listed()).toEqual(before);
      const summary = await sync('auto');
      ok(summary);
      expect(summary.mode).toBe('incremental');
      const after = await both();
      expect(after.served['ana@example.com']).not.toContain('up:f-ana');
      expect(after.served['di@example.com']).toContain('up:f-ana');
      expect(after.over).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('scenario 3: a user deactivated upstream is served Inactive on the mirror and sees nothing; reactivated, their access is back', async () => {
    ok(await mirrorSync());
    const state = async () => (await crawlAccess(mirror.url, KEY)).users.find((u) => u.email.toLowerCase() === 'cy@example.com')?.state;
    source.putUser({ nativeId: 'cy', email: 'cy@example.com', fullName: 'Cy', active: false });
    await publish();
    ok(await mirrorSync());
    expect(await state()).toBe('Inactive');
    expect((await both()).served['cy@example.com']).toEqual([]);
    source.putUser({ nativeId: 'cy', email: 'cy@example.com', fullName: 'Cy', active: true });
    await publish();
    ok(await mirrorSync());
    expect(await state()).toBe('Active');
    const { served, truth } = await both();
    expect(served['cy@example.com']).toEqual(['up:f-eng', 'up:f-ops', 'up:f-pub']);
    expect(served).toEqual(truth);
  });

  it('scenario 11: only GROUP * is everyone; a USER * entry, as a careless upstream serves it, grants nobody', async () => {
    await up.database.db('file_permissions').where({ file_id: 'up:f-none' }).delete();
    await up.database.db('file_permissions').insert({ file_id: 'up:f-none', principal_type: 'USER', principal_id: '*', action: 'VIEW', served_id: '*' });
    const listed = (await up.get('/v1/files/up:f-none/permissions', { Authorization: `Bearer ${KEY}` })).body as { value: { permissions: unknown[] } };
    expect(listed.value.permissions).toEqual([{ type: 'USER', id: '*', action: 'VIEW' }]);
    ok(await mirrorSync());
    const { served, mirrored } = await both();
    expect(Object.values(served).flat()).not.toContain('up:f-none');
    expect(mirrored.files.find((f) => f.id === 'upstream:up:f-none')?.permissions).not.toContainEqual(expect.objectContaining({ type: 'GROUP', id: '*' }));
    expect(served['di@example.com']).toEqual(['up:f-ops', 'up:f-pub']);
  });

  it('scenario 15: a new account re-using a removed person’s email (another case) inherits nothing of theirs', async () => {
    ok(await mirrorSync());
    source.remove('user', 'ana');
    source.putUser({ nativeId: 'ana-2', email: 'ANA@example.COM', fullName: 'Another Ana', active: true });
    await publish();
    ok(await mirrorSync());
    const { served, truth, over } = await both();
    expect(served['ana@example.com']).toEqual(['up:f-pub']);
    expect(over).toEqual([]);
    expect(served).toEqual(truth);
  });

  it('scenarios 17, 22: a group listed then 404, 429s inside a member listing, a member page failing every retry: the run goes on; a group whose listing failed keeps its staged members (never a truncated list), the rest is read', async () => {
    ok(await mirrorSync());
    const before = await both();
    // At the source: bo leaves core, ops is deleted (after the group listing was read), di joins eng.
    putGroup('core', [user('cy'), group('eng')]);
    putGroup('eng', [user('ana'), group('core'), user('di')]);
    await publish();
    let throttled = 0;
    const summary = await mirrorSync(
      faulty((url, path) => {
        if (path === '/v1/groups/up:ops/members') return error(404);
        // eng's member listing: its second page throttled twice (then answered), core's second page down for good.
        if (path === '/v1/groups/up:eng/members' && url.searchParams.has('$skiptoken') && throttled < 2) {
          throttled += 1;
          return error(429, { 'retry-after': '0' });
        }
        if (path === '/v1/groups/up:core/members' && url.searchParams.has('$skiptoken')) return error(503);
        return undefined;
      }),
    );
    expect(throttled).toBe(2);
    expect(summary.status).toBe('succeeded');
    // Item failures, named (the run's status says succeeded; its failures say what kept its staged state).
    expect(summary.failures.sort()).toEqual([expect.stringMatching(/^up:core: Remote answered 503 /), expect.stringMatching(/^up:ops: Remote answered 404 /)]);
    const after = await both();
    // eng read whole: di sees f-eng. core and ops keep what was staged (bo still through core, until core is read again).
    expect(after.served['di@example.com']).toEqual(['up:f-eng', 'up:f-ops', 'up:f-pub']);
    const members = (id: string) =>
      after.mirrored.groups
        .find((g) => g.id === `upstream:up:${id}`)
        ?.members?.entries.map((m) => m.id)
        .sort();
    const earlier = (id: string) =>
      before.mirrored.groups
        .find((g) => g.id === `upstream:up:${id}`)
        ?.members?.entries.map((m) => m.id)
        .sort();
    expect(members('core')).toEqual(earlier('core'));
    expect(after.over).toEqual(['bo@example.com -> up:f-eng']);
    expect(members('ops')).toEqual(earlier('ops'));
    // The next clean run converges.
    ok(await mirrorSync());
    const clean = await both();
    expect(clean.served).toEqual(clean.truth);
    expect(clean.served['bo@example.com']).toEqual(['up:f-pub']);
  });

  it('a member list that gains an entry the mirror cannot resolve (a type it does not know) fails closed: a member removed in that edit loses access, the rest keep theirs; a new group with one is not served', async () => {
    ok(await mirrorSync());
    // At the source: bo leaves core; a new group, new (ana), gets a file of its own.
    putGroup('core', [user('cy'), group('eng')]);
    putGroup('new', [user('ana')]);
    source.html('f-new', '<h1>f-new</h1>', [group('new')]);
    await publish();
    // On the wire, the first page of core's and of new's member lists carries an entry of a type the manifest does not know.
    const robots: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const path = decodeURIComponent(url.pathname);
      const res = await globalThis.fetch(url, init);
      if (!['/v1/groups/up:core/members', '/v1/groups/up:new/members'].includes(path) || url.searchParams.has('$skiptoken')) return res;
      const body = (await res.json()) as { value: unknown[] };
      return Response.json({ ...body, value: [...body.value, { type: 'ROBOT', id: 'r2d2' }] });
    };
    const summary = await mirrorSync(robots);
    expect(summary.status).toBe('succeeded');
    expect(summary.failures.sort()).toEqual([expect.stringMatching(/^up:core: .*"robot"/), expect.stringMatching(/^up:new: .*"robot"/)]);
    const after = await both();
    // core narrowed to what it still lists for certain: bo no longer sees f-eng through it; cy and eng's members still do.
    expect(after.over).toEqual([]);
    expect(after.served['bo@example.com']).toEqual(['up:f-pub']);
    expect(after.served['cy@example.com']).toEqual(['up:f-eng', 'up:f-ops', 'up:f-pub']);
    expect(after.served['ana@example.com']).toEqual(['up:f-ana', 'up:f-eng', 'up:f-pub']);
    const core = after.mirrored.groups.find((g) => g.id === 'upstream:up:core');
    expect(core?.members?.entries.map((m) => m.type).sort()).toEqual(['GROUP', 'USER']);
    // new is not served, so nobody sees f-new on the mirror yet (never more than upstream).
    expect(after.mirrored.groups.map((g) => g.id)).not.toContain('upstream:up:new');
    expect(Object.values(after.served).flat()).not.toContain('up:f-new');
    // The next clean run converges.
    ok(await mirrorSync());
    const clean = await both();
    expect(clean.served).toEqual(clean.truth);
    expect(clean.served['ana@example.com']).toContain('up:f-new');
  });

  it('scenario 16: 10,001 members, more than 10 groups, a file granted to 205 principals: counts match the upstream', async () => {
    const many = Array.from({ length: 10_001 }, (_, i) => `m${i}`);
    for (const id of many) source.putUser({ nativeId: id, email: `${id}@example.com`, active: true });
    putGroup('crowd', many.map(user));
    for (let i = 0; i < 12; i++) putGroup(`g${i}`, [user(`m${i}`)]);
    source.html('f-wide', '<h1>wide</h1>', many.slice(0, 205).map(user));
    await publish();
    ok(await mirrorSync());
    const count = (table: string, where: Record<string, string>) =>
      mirror.database
        .db(table)
        .where(where)
        .count({ n: '*' })
        .then((r) => Number((r[0] as { n: number }).n));
    expect(await count('group_members', { group_id: 'upstream:up:crowd' })).toBe(10_001);
    expect(await count('groups', { source: 'upstream' })).toBe(3 + 1 + 12);
    expect(await count('file_permissions', { file_id: 'upstream:up:f-wide' })).toBe(205);
    expect(await count('users', { source: 'upstream' })).toBe(4 + 10_001);
  }, 180_000);

  it('scenario 18: a full run stopped half-way deletes nothing', async () => {
    for (let i = 0; i < 10; i++) source.html(`f-more-${i}`, `<h1>${i}</h1>`, [group('ops')]);
    await publish();
    ok(await mirrorSync());
    const staged = () => mirror.database.db('files').where({ source: 'upstream', status: 'active' }).count({ n: '*' });
    const all = await staged();
    const stop = new AbortController();
    let reads = 0;
    const summary = await mirrorSync(
      faulty((_url, path) => {
        if (/^\/v1\/files\/[^/]+\/permissions$/.test(path) && ++reads === 8) stop.abort();
        return undefined;
      }),
      stop.signal,
      2,
    );
    expect(summary.status).toBe('cancelled');
    expect(summary.counts.deleted).toBe(0);
    expect(await staged()).toEqual(all);
  });
});

describe('REST manifest, listed_version: which runs are reconciled', () => {
  const manifest = (access: string, extra = '') => `version: 1
requester: { url_base: 'https://api.example.com' }
streams:
  documents:
    incremental_sync: { type: listed_version${extra} }
    requester: { path: /docs }
    record_selector: items
    map: { id: id, name: id, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.id}}</p>' } }
${access}`;
  const FIELD = '    access: { field: { path: grants, map: { type: "\'user\'", id: $ } } }';
  const REQUEST = `    access:
      request:
        requester: { path: '/docs/{record.id}/grants' }
        record_selector: items
        map: { type: "'user'", id: $ }`;
  const child = (access: string) => `
    children:
      - requester: { path: '/docs/{record.id}/files' }
        record_selector: items
        map: { id: id, name: id, url: "'https://files.example.com/' & id" }
        content: { html: { template: '<p>{{record.id}}</p>' } }
        access: ${access}`;
  const reconciled = (text: string) => reconcilesAccess(createRestAdapter({ name: 'docs', loaded: parseRestManifest(text, 'docs.yaml'), env: {} }));

  it('only when an access list can change while the listed record does not', () => {
    expect(reconciled(manifest(FIELD))).toBe(false);
    expect(reconciled(manifest(FIELD + child('{ parent: true }')))).toBe(false);
    expect(reconciled(manifest(REQUEST))).toBe(true);
    expect(reconciled(manifest(FIELD, ', version: rev'))).toBe(true);
    expect(reconciled(manifest(FIELD + child('{ parent: true, field: { path: grants, map: { type: "\'user\'", id: $ } } }')))).toBe(true);
  });
});
