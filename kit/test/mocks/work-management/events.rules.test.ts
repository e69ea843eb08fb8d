import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

const clock = manualClock();
let m: RunningMock;
let ids: { org: string; p: string; q: string; parent: string; sub: string; alice: string; bob: string; story: string; team: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Events');
    const bob = member(s, org, 'Bob Events');
    const team = s.people.addTeam({ workspace: org, name: 'Events team' });
    const p = s.projects.add({ workspace: org, team: team.gid, name: 'P', owner: alice });
    const q = s.projects.add({ workspace: org, team: team.gid, name: 'Q', owner: alice });
    s.projects.addMembership({ parent: p.gid, member: bob });
    const parent = s.tasks.add({ workspace: org, name: 'Parent', memberships: [{ project: p.gid }], followers: [alice] });
    const sub = s.tasks.add({ workspace: org, name: 'Sub (no project)', parent: parent.gid, followers: [alice] });
    const story = s.tasks.addStory({ target: parent.gid, text: 'first comment', createdBy: alice });
    return { org, p: p.gid, q: q.gid, parent: parent.gid, sub: sub.gid, alice, bob, story: story.gid, team: team.gid };
  }, clock.now);
  m = await startMock({ organization, now: clock.now });
  ids = built;
});
afterAll(() => m.close());

async function bootstrap(resource: string): Promise<string> {
  const first = await m.api(`/events?resource=${resource}`);
  expect(first.status).toBe(412);
  return first.body.sync;
}

async function read(resource: string, sync: string): Promise<{ status: number; data: any[]; sync: string; has_more: boolean }> {
  const res = await m.api(`/events?resource=${resource}&sync=${encodeURIComponent(sync)}`);
  return { status: res.status, data: res.body.data, sync: res.body.sync, has_more: res.body.has_more };
}

describe('Events rule 5: the first request has no sync token and receives 412 with the initial token', () => {
  it('412 with errors and a top-level sync', async () => {
    const res = await m.api(`/events?resource=${ids.p}`);
    expect(res.status).toBe(412);
    expect(res.body.errors[0].message).toMatch(/^Sync token invalid or too old/);
    expect(typeof res.body.sync).toBe('string');
    const next = await read(ids.p, res.body.sync);
    expect(next).toMatchObject({ status: 200, data: [], has_more: false });
  });

  it('each later request passes the token of the preceding response and gets what changed since', async () => {
    let sync = await bootstrap(ids.p);
    await m.api(`/tasks/${ids.parent}`, { method: 'PUT', body: { data: { name: 'Parent (renamed)' } } });
    const page = await read(ids.p, sync);
    expect(page.data).toEqual([
      expect.objectContaining({
        action: 'changed',
        resource: expect.objectContaining({ gid: ids.parent, resource_type: 'task' }),
        change: expect.objectContaining({ field: 'name', action: 'changed', new_value: 'Parent (renamed)' }),
        created_at: expect.any(String),
      }),
    ]);
    sync = page.sync;
    expect((await read(ids.p, sync)).data).toEqual([]);
  });
});

describe('Events rule 6: re-requesting the current token returns the same results', () => {
  it('is idempotent', async () => {
    const sync = await bootstrap(ids.p);
    await m.api(`/tasks/${ids.parent}/stories`, { body: { data: { text: 'hello' } } });
    const a = await read(ids.p, sync);
    const b = await read(ids.p, sync);
    expect(a.data).toHaveLength(1);
    expect(b.data).toEqual(a.data);
  });
});

describe('At most 100 events per response; has_more says to call again at once', () => {
  it('pages through 250 events', async () => {
    let sync = await bootstrap(ids.q);
    for (let i = 0; i < 250; i++) m.mock.model.tasks.add({ workspace: ids.org, name: `bulk ${i}`, memberships: [{ project: ids.q }] });
    const sizes: number[] = [];
    let more = true;
    while (more) {
      const page = await read(ids.q, sync);
      sizes.push(page.data.length);
      more = page.has_more;
      sync = page.sync;
    }
    expect(sizes).toEqual([100, 100, 50]);
  });
});

describe('Events rule 7: a sync token expires after 24 hours at most (or sooner); 412 means invalid or expired', () => {
  it('an expired token gives 412 with a fresh token', async () => {
    const sync = await bootstrap(ids.p);
    clock.advance(23 * 3600_000);
    expect((await read(ids.p, sync)).status).toBe(200);
    clock.advance(2 * 3600_000);
    const expired = await m.api(`/events?resource=${ids.p}&sync=${encodeURIComponent(sync)}`);
    expect(expired.status).toBe(412);
    expect(expired.body.sync).not.toBe(sync);
    expect((await read(ids.p, expired.body.sync)).status).toBe(200);
  });

  it('a forged token, a token for another resource, or an admin-expired token gives 412', async () => {
    const sync = await bootstrap(ids.p);
    expect((await m.api(`/events?resource=${ids.p}&sync=garbage`)).status).toBe(412);
    expect((await m.api(`/events?resource=${ids.q}&sync=${encodeURIComponent(sync)}`)).status).toBe(412);
    expect((await m.call('/_admin/sync-tokens/expire', { method: 'POST' })).status).toBe(200);
    expect((await m.api(`/events?resource=${ids.p}&sync=${encodeURIComponent(sync)}`)).status).toBe(412);
  });

  it('a shorter sync token lifetime is configurable', async () => {
    m.mock.setHostility({ syncTokenTtlMs: 60_000 });
    const sync = await bootstrap(ids.p);
    clock.advance(61_000);
    expect((await read(ids.p, sync)).status).toBe(412);
    m.mock.setHostility({ syncTokenTtlMs: 86_400_000 });
  });
});

describe('Events rule 3: events bubble up — a project stream includes stories on its tasks and subtasks', () => {
  it("a comment on a project-less subtask reaches the parent's project stream", async () => {
    const sync = await bootstrap(ids.p);
    const res = await m.api(`/tasks/${ids.sub}/stories`, { body: { data: { text: 'on the subtask' } } });
    expect(res.status).toBe(201);
    const page = await read(ids.p, sync);
    expect(page.data).toEqual([
      expect.objectContaining({
        action: 'added',
        resource: expect.objectContaining({ gid: res.body.data.gid, resource_type: 'story' }),
        parent: expect.objectContaining({ gid: ids.sub }),
      }),
    ]);
  });
});

describe('Workspace events: the whole domain, 1,000 per call', () => {
  it('sees membership, team and task changes across projects', async () => {
    const first = await m.api(`/workspaces/${ids.org}/events`);
    expect(first.status).toBe(412);
    const carol = member(m.mock.model, ids.org, 'Carol Events');
    await m.call('/_admin/team_memberships', { method: 'POST', body: { team: ids.team, user: carol } });
    m.mock.model.tasks.add({ workspace: ids.org, name: 'in Q', memberships: [{ project: ids.q }] });
    const page = await m.api(`/workspaces/${ids.org}/events?sync=${encodeURIComponent(first.body.sync)}`);
    const types = page.body.data.map((e: { resource: { resource_type: string }; action: string }) => `${e.resource.resource_type}:${e.action}`);
    expect(types).toEqual(['workspace_membership:added', 'team_membership:added', 'task:added']);
  });
});

describe('Admin mutations are recorded in the events stream', () => {
  it('move, remove a member, delete, edit a comment, add a task', async () => {
    let sync = await bootstrap(ids.p);
    const next = async () => {
      const page = await read(ids.p, sync);
      sync = page.sync;
      return page.data.map((e) => ({
        action: e.action,
        type: e.resource.resource_type,
        gid: e.resource.gid,
        parent: e.parent?.gid ?? null,
        field: e.change?.field,
      }));
    };
    const added = await m.call('/_admin/tasks', { method: 'POST', body: { name: 'Added by admin', projects: [ids.p] } });
    expect(await next()).toEqual([{ action: 'added', type: 'task', gid: added.body.data.gid, parent: ids.p, field: undefined }]);

    await m.call(`/_admin/tasks/${added.body.data.gid}/move`, { method: 'POST', body: { from: ids.p, to: ids.q } });
    expect(await next()).toEqual([
      { action: 'added', type: 'task', gid: added.body.data.gid, parent: ids.q, field: undefined },
      { action: 'removed', type: 'task', gid: added.body.data.gid, parent: ids.p, field: undefined },
    ]);

    await m.call(`/_admin/projects/${ids.p}/members/${ids.bob}`, { method: 'DELETE' });
    expect(await next()).toEqual([{ action: 'removed', type: 'membership', gid: expect.any(String), parent: ids.p, field: undefined }]);

    await m.call(`/_admin/stories/${ids.story}`, { method: 'PUT', body: { text: 'edited comment' } });
    expect(await next()).toEqual([{ action: 'changed', type: 'story', gid: ids.story, parent: ids.parent, field: 'text' }]);
    expect((await m.api(`/stories/${ids.story}`)).body.data).toMatchObject({ text: 'edited comment', is_edited: true });

    await m.call(`/_admin/tasks/${ids.parent}`, { method: 'DELETE' });
    const deleted = await next();
    expect(deleted).toEqual([
      { action: 'deleted', type: 'task', gid: ids.sub, parent: null, field: undefined },
      { action: 'deleted', type: 'task', gid: ids.parent, parent: null, field: undefined },
    ]);
    expect((await m.api(`/tasks/${ids.parent}`)).status).toBe(404);
  });

  it('events older than the 24 h retention are gone, and tokens from before them give 412', async () => {
    // A token lifetime longer than the retention isolates the retention rule.
    m.mock.setHostility({ syncTokenTtlMs: 72 * 3600_000 });
    const sync = await bootstrap(ids.q);
    m.mock.model.tasks.add({ workspace: ids.org, name: 'old news', memberships: [{ project: ids.q }] });
    const kept = await bootstrap(ids.q);
    clock.advance(25 * 3600_000);
    m.mock.model.tasks.add({ workspace: ids.org, name: 'fresh', memberships: [{ project: ids.q }] });
    expect((await read(ids.q, sync)).status).toBe(412);
    const page = await read(ids.q, kept);
    expect(page.status).toBe(200);
    expect(page.data.map((e) => e.resource.name)).toEqual(['fresh']);
    m.mock.setHostility({ syncTokenTtlMs: 86_400_000 });
  });
});

describe('Events rule 1: delivery is at most once; a small number of events can be missing', () => {
  it('with eventLossRate set, about that share of events never shows up', async () => {
    m.mock.setHostility({ eventLossRate: 0.2 });
    let sync = await bootstrap(ids.q);
    for (let i = 0; i < 200; i++) m.mock.model.tasks.add({ workspace: ids.org, name: `maybe ${i}`, memberships: [{ project: ids.q }] });
    let delivered = 0;
    for (let more = true; more;) {
      const page = await read(ids.q, sync);
      delivered += page.data.length;
      more = page.has_more;
      sync = page.sync;
    }
    m.mock.setHostility({ eventLossRate: 0 });
    expect(delivered).toBeGreaterThan(120);
    expect(delivered).toBeLessThan(190);
  });
});
