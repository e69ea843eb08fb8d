import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

/**
 * `POST /tasks/{gid}/setParent` (reference §5.9): a task moves under another task, or to no parent,
 * with its subtasks; where it lands among the new parent's subtasks; what is refused; and the
 * events each stream sees (the task's old ancestors and their projects see it `removed`, its new
 * ones see it `added` and its `parent` changed; what happens to it later reaches only the new ones).
 */
const clock = manualClock();
let m: RunningMock;
let ids: { org: string; p: string; q: string; inP: string; inQ: string; root: string; sub: string; leaf: string; first: string; alice: string; bob: string };

beforeEach(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Parent');
    const bob = member(s, org, 'Bob Parent');
    const p = s.projects.add({ workspace: org, team: null, name: 'P', owner: alice });
    const q = s.projects.add({ workspace: org, team: null, name: 'Q', owner: alice });
    const inP = s.tasks.add({ workspace: org, name: 'In P', memberships: [{ project: p.gid }] });
    const inQ = s.tasks.add({ workspace: org, name: 'In Q', memberships: [{ project: q.gid }] });
    const first = s.tasks.add({ workspace: org, name: 'First subtask of In Q', parent: inQ.gid });
    const root = s.tasks.add({ workspace: org, name: 'Root in no project', followers: [alice] });
    const sub = s.tasks.add({ workspace: org, name: 'Subtask in no project', parent: root.gid, followers: [bob] });
    const leaf = s.tasks.add({ workspace: org, name: 'Its subtask', parent: sub.gid });
    return { org, p: p.gid, q: q.gid, inP: inP.gid, inQ: inQ.gid, root: root.gid, sub: sub.gid, leaf: leaf.gid, first: first.gid, alice, bob };
  }, clock.now);
  m = await startMock({ organization, now: clock.now });
  ids = built;
});
afterEach(() => m.close());

const setParent = (task: string, data: Record<string, unknown>) => m.api(`/tasks/${task}/setParent`, { body: { data } });
const subtasks = async (task: string): Promise<string[]> => (await m.api(`/tasks/${task}/subtasks`)).body.data.map((t: { gid: string }) => t.gid);

async function bootstrap(resource: string): Promise<string> {
  const first = await m.api(`/events?resource=${resource}`);
  expect(first.status).toBe(412);
  return first.body.sync;
}
async function eventsSince(resource: string, sync: string): Promise<Array<{ action: string; gid: string; parent: string | null; field?: string }>> {
  const res = await m.api(`/events?resource=${resource}&sync=${encodeURIComponent(sync)}`);
  expect(res.status).toBe(200);
  return res.body.data.map((e: any) => ({
    action: e.action,
    gid: e.resource.gid,
    parent: e.parent?.gid ?? null,
    ...(e.change ? { field: e.change.field } : {}),
  }));
}

describe('setParent moves a task, with its subtasks, under another task or to no parent', () => {
  it('answers with the task, now listed under its new parent and no longer under its old one; modified_at stays', async () => {
    const before = (await m.api(`/tasks/${ids.sub}`)).body.data.modified_at;
    clock.advance(60_000);
    const res = await setParent(ids.sub, { parent: ids.inP });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ gid: ids.sub, parent: { gid: ids.inP }, modified_at: before });
    expect({ old: await subtasks(ids.root), now: await subtasks(ids.inP), leaf: await subtasks(ids.sub) }).toEqual({
      old: [],
      now: [ids.sub],
      leaf: [ids.leaf],
    });
    expect((await m.api(`/tasks/${ids.inP}?opt_fields=num_subtasks`)).body.data.num_subtasks).toBe(1);
  });

  it('parent null makes it a task without a parent', async () => {
    const res = await setParent(ids.sub, { parent: null });
    expect(res.status).toBe(200);
    expect(res.body.data.parent).toBeNull();
    expect(await subtasks(ids.root)).toEqual([]);
  });

  it('insert_after null puts it first, insert_before / insert_after a sibling next to it, neither last', async () => {
    expect((await setParent(ids.sub, { parent: ids.inQ, insert_after: null })).status).toBe(200);
    expect(await subtasks(ids.inQ)).toEqual([ids.sub, ids.first]);
    expect((await setParent(ids.sub, { parent: ids.inQ, insert_after: ids.first })).status).toBe(200);
    expect(await subtasks(ids.inQ)).toEqual([ids.first, ids.sub]);
    expect((await setParent(ids.sub, { parent: ids.inQ, insert_before: ids.first })).status).toBe(200);
    expect(await subtasks(ids.inQ)).toEqual([ids.sub, ids.first]);
    expect((await setParent(ids.root, { parent: ids.inQ })).status).toBe(200);
    expect(await subtasks(ids.inQ)).toEqual([ids.sub, ids.first, ids.root]);
  });
});

describe('setParent refuses what it cannot do (400, nothing changed)', () => {
  it.each([
    ['no parent given', () => ({ task: ids.sub, data: {} }), /parent: Missing input/],
    ['a parent that is not a gid', () => ({ task: ids.sub, data: { parent: 12 } }), /parent: Not a task gid/],
    ['both positions', () => ({ task: ids.sub, data: { parent: ids.inQ, insert_after: ids.first, insert_before: ids.first } }), /only provide one/],
    [
      'a position that is not a subtask of the new parent',
      () => ({ task: ids.sub, data: { parent: ids.inQ, insert_before: ids.leaf } }),
      /insert_before: Not a subtask/,
    ],
    ['a position without a parent', () => ({ task: ids.sub, data: { parent: null, insert_after: ids.first } }), /insert_after: Not a subtask/],
    ['itself as parent', () => ({ task: ids.sub, data: { parent: ids.sub } }), /cannot be made a subtask of itself/],
    ['one of its own subtasks as parent (a cycle)', () => ({ task: ids.root, data: { parent: ids.leaf } }), /or of one of its own subtasks/],
  ])('%s', async (_name, input, message) => {
    const { task, data } = input();
    const res = await setParent(task, data);
    expect({ status: res.status, message: res.body.errors[0].message }).toEqual({ status: 400, message: expect.stringMatching(message) });
    expect({ root: await subtasks(ids.root), sub: await subtasks(ids.sub), inQ: await subtasks(ids.inQ) }).toEqual({
      root: [ids.sub],
      sub: [ids.leaf],
      inQ: [ids.first],
    });
  });

  it('an unknown parent is 404; a task or parent the caller cannot see is 403', async () => {
    expect((await setParent(ids.sub, { parent: '999999999' })).status).toBe(404);
    // Bob follows the subtask only, Alice the root only.
    const as = (user: string, parent: string) =>
      m.api(`/tasks/${ids.sub}/setParent`, { body: { data: { parent } }, token: m.mock.tokenFor(user) }).then((r) => r.status);
    expect({ parentHidden: await as(ids.bob, ids.root), taskHidden: await as(ids.alice, ids.inP) }).toEqual({ parentHidden: 403, taskHidden: 403 });
  });
});

describe('setParent events: removed where the task was, added and parent changed where it is now', () => {
  it('a subtask of a tree in no project moved under a task in a project', async () => {
    const [root, p, sub] = [await bootstrap(ids.root), await bootstrap(ids.p), await bootstrap(ids.sub)];
    await setParent(ids.sub, { parent: ids.inP });
    expect(await eventsSince(ids.root, root)).toEqual([{ action: 'removed', gid: ids.sub, parent: ids.root }]);
    expect(await eventsSince(ids.p, p)).toEqual([
      { action: 'added', gid: ids.sub, parent: ids.inP },
      { action: 'changed', gid: ids.sub, parent: null, field: 'parent' },
    ]);
    expect((await eventsSince(ids.sub, sub)).map((e) => e.action)).toEqual(['removed', 'added', 'changed']);
  });

  it("what happens in the moved subtree afterwards reaches the new ancestors' streams, not the old ones", async () => {
    await setParent(ids.sub, { parent: ids.inP });
    const [root, p] = [await bootstrap(ids.root), await bootstrap(ids.p)];
    await m.api(`/tasks/${ids.sub}/removeFollowers`, { body: { data: { followers: [ids.bob] } } });
    await m.api(`/tasks/${ids.leaf}`, { method: 'DELETE' });
    expect(await eventsSince(ids.root, root)).toEqual([]);
    expect(await eventsSince(ids.p, p)).toEqual([
      { action: 'changed', gid: ids.sub, parent: null, field: 'followers' },
      { action: 'deleted', gid: ids.leaf, parent: null },
    ]);
  });

  it('a subtask of a task in a project moved to no parent: its old project sees it removed, then nothing more', async () => {
    await setParent(ids.sub, { parent: ids.inQ });
    const [q, sub] = [await bootstrap(ids.q), await bootstrap(ids.sub)];
    await setParent(ids.sub, { parent: null });
    await m.api(`/tasks/${ids.leaf}`, { method: 'DELETE' });
    expect(await eventsSince(ids.q, q)).toEqual([{ action: 'removed', gid: ids.sub, parent: ids.inQ }]);
    expect(await eventsSince(ids.sub, sub)).toEqual([
      { action: 'removed', gid: ids.sub, parent: ids.inQ },
      { action: 'changed', gid: ids.sub, parent: null, field: 'parent' },
      { action: 'deleted', gid: ids.leaf, parent: null },
    ]);
  });

  it('a reorder under the same parent records nothing', async () => {
    await setParent(ids.root, { parent: ids.inQ });
    const q = await bootstrap(ids.q);
    await setParent(ids.root, { parent: ids.inQ, insert_after: null });
    expect(await eventsSince(ids.q, q)).toEqual([]);
  });
});
