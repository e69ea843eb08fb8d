import pino from 'pino';
import type { Principal } from '../../src/adapters/adapter';
import { SourceUnavailableError } from '../../src/adapters/source-error';
import { runSync, type SyncOptions } from '../../src/sync/run-sync';
import { filesSeenByEmail } from '../helpers/crawl-access';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';

const KEY = TEST_KEYS[0];
const silent = pino({ level: 'silent' });
const user = (nativeId: string): Principal => ({ type: 'USER', nativeId });
const group = (nativeId: string): Principal => ({ type: 'GROUP', nativeId });
const unresolvable = () => new Error('member list: an entry\u2019s type is "robot", not user, group or everyone');

/**
 * A failed group through the engine's front door, into real staging served by a real gateway on
 * loopback and crawled as the platform crawls it: a failure that says which members the source
 * still lists for certain (`membersAtMost`: its member list was read whole but not all of it
 * resolves) narrows the staged members to their intersection with those, never adding one, so a
 * member the source removed loses what the group gives; a failure without it (a transient one)
 * keeps the staged members. Either way the group stays staged and is read again next run.
 */
describe.each(databaseKinds)('a failed group’s staged members (%s)', (kind) => {
  let gw: TestGateway;
  let clock: number;
  beforeEach(async () => {
    gw = await startTestGateway(kind);
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => gw.close());

  const sync = (source: ScriptedSource, options: Partial<SyncOptions> = {}) => {
    clock += 60_000;
    return runSync(source, { db: gw.database.db, blobs: gw.blobs, logger: silent, now: () => new Date(clock) }, options);
  };
  const get = async <T>(path: string): Promise<T> => (await gw.get(path, { Authorization: `Bearer ${KEY}` })).body as T;
  /** The group as served (undefined when it is not), with its members as served: `USER <email>` or `GROUP <id>`. */
  const served = async (id: string) => {
    const groups = (await get<{ value: Array<{ id: string; last_modified_datetime: string }> }>('/v1/groups?$top=50')).value;
    const found = groups.find((g) => g.id === `src:${id}`);
    if (!found) return undefined;
    const users = (await get<{ value: Array<{ id: string; primary_email_addr: string }> }>('/v1/users?$top=50')).value;
    const email = new Map(users.map((u) => [u.id, u.primary_email_addr]));
    const members = (await get<{ value: Array<{ type: string; id: string }> }>(`/v1/groups/src:${id}/members?$top=50`)).value;
    return { modified: found.last_modified_datetime, members: members.map((m) => `${m.type} ${m.type === 'USER' ? email.get(m.id) : m.id}`).sort() };
  };
  const seen = () => filesSeenByEmail(gw.url, KEY);

  /** Ana, Bo, Cy; team [Ana, Bo], outer [team, Cy]; f-team granted to team, f-outer to outer; synced in full once. */
  async function synced(): Promise<ScriptedSource> {
    const s = new ScriptedSource('src');
    for (const id of ['ana', 'bo', 'cy']) s.putUser({ nativeId: id, email: `${id}@x.example`, active: true });
    s.putGroup({ nativeId: 'team', name: 'Team', members: [user('ana'), user('bo')] });
    s.putGroup({ nativeId: 'outer', name: 'Outer', members: [group('team'), user('cy')] });
    s.html('f-team', '<p>team</p>', [group('team')]);
    s.html('f-outer', '<p>outer</p>', [group('outer')]);
    expect(await sync(s)).toMatchObject({ mode: 'full', status: 'succeeded' });
    expect(await seen()).toEqual({
      'ana@x.example': ['src:f-outer', 'src:f-team'],
      'bo@x.example': ['src:f-outer', 'src:f-team'],
      'cy@x.example': ['src:f-outer'],
    });
    return s;
  }

  it('narrows the staged members to those the source still lists, never adding one: the removed member loses access through the group, the rest keep it', async () => {
    const s = await synced();
    const before = await served('team');
    // The source now lists [Ana, Cy, <an entry of unknown type>]: Bo was removed; Cy, not staged, is not added.
    s.failGroup('team', unresolvable(), [user('ana'), user('cy')]);
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { failed: 1 } });
    const narrowed = await served('team');
    expect(narrowed?.members).toEqual(['USER ana@x.example']);
    // Moved on, as for any change of members: the crawler reads the members again.
    expect(narrowed!.modified > before!.modified).toBe(true);
    expect(await seen()).toEqual({ 'ana@x.example': ['src:f-outer', 'src:f-team'], 'bo@x.example': [], 'cy@x.example': ['src:f-outer'] });

    // The same list read again rewrites nothing; a full run narrows too, and its sweep keeps the group.
    s.failGroup('team', unresolvable(), [user('ana'), user('cy')]);
    expect((await sync(s, { mode: 'incremental' })).counts.failed).toBe(1);
    expect(await served('team')).toEqual(narrowed);
    s.failGroup('team', unresolvable(), []);
    expect(await sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect((await served('team'))?.members).toEqual([]);
    expect(await seen()).toEqual({ 'ana@x.example': [], 'bo@x.example': [], 'cy@x.example': ['src:f-outer'] });

    // Fixed at the source, to the very list staged before: the group is written whole again.
    s.putGroup({ nativeId: 'team', name: 'Team', members: [user('ana'), user('bo')] });
    expect((await sync(s, { mode: 'incremental' })).counts.failed).toBe(0);
    expect((await served('team'))?.members).toEqual(['USER ana@x.example', 'USER bo@x.example']);
    expect((await seen())['bo@x.example']).toEqual(['src:f-outer', 'src:f-team']);
  });

  it('moves nothing when the list read whole later is what narrowing left: the served group did not change', async () => {
    const s = await synced();
    const team = { nativeId: 'team', name: 'Team', createdAt: '2026-01-02T03:04:05Z', metadata: { unit: 'ops', tags: { b: [1, 2], a: 'x' } } };
    s.putGroup({ ...team, members: [user('ana'), user('bo')] });
    await sync(s, { mode: 'incremental' });
    s.failGroup('team', unresolvable(), [user('ana')]);
    expect((await sync(s, { mode: 'incremental' })).counts.failed).toBe(1);
    const narrowed = await served('team');
    expect(narrowed?.members).toEqual(['USER ana@x.example']);
    // Fixed at the source by removing the entry it could not resolve: the list is now [Ana], as staged.
    s.putGroup({ ...team, members: [user('ana')] });
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    expect(await served('team')).toEqual(narrowed);
    // A change after it is written as any other.
    s.putGroup({ ...team, name: 'Team A', members: [user('ana')] });
    await sync(s, { mode: 'incremental' });
    expect((await served('team'))!.modified > narrowed!.modified).toBe(true);
  });

  it('compares a sub-group as an entry: one the source no longer lists for certain is dropped with all it gives', async () => {
    const s = await synced();
    s.failGroup('outer', unresolvable(), [user('cy'), group('elsewhere')]);
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect((await served('outer'))?.members).toEqual(['USER cy@x.example']);
    expect(await seen()).toEqual({ 'ana@x.example': ['src:f-team'], 'bo@x.example': ['src:f-team'], 'cy@x.example': ['src:f-outer'] });
  });

  it('takes the last event for a group in a batch: a failure after the group was read narrows what is staged', async () => {
    const s = await synced();
    s.putGroup({ nativeId: 'team', name: 'Team', members: [user('ana'), user('bo'), user('cy')] });
    s.failGroup('team', unresolvable(), [user('ana'), user('cy')]);
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect((await served('team'))?.members).toEqual(['USER ana@x.example']);
  });

  it('keeps the staged members of a group whose failure says nothing of them (a transient one), through incremental and full runs', async () => {
    const s = await synced();
    const before = await served('team');
    s.failGroup('team', new SourceUnavailableError('503 from source on page 2 of the members'));
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(await served('team')).toEqual(before);
    expect(await sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(await served('team')).toEqual(before);
    expect((await seen())['bo@x.example']).toEqual(['src:f-outer', 'src:f-team']);
  });

  it('leaves a failed group that staging does not have unstaged: nobody sees a file granted to it', async () => {
    const s = await synced();
    s.html('f-new', '<p>new</p>', [group('new')]);
    s.failGroup('new', unresolvable(), [user('ana')]);
    expect(await sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(await served('new')).toBeUndefined();
    expect(Object.values(await seen()).flat()).not.toContain('src:f-new');
  });
});
