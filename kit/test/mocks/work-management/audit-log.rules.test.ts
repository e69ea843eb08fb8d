import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

const clock = manualClock();
let m: RunningMock;
let ids: { org: string; project: string; task: string; team: string; alice: string; bob: string; outsider: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Audit');
    const bob = member(s, org, 'Bob Audit');
    const outsider = s.people.addUser({ name: 'Other Service Account', email: 'sa@elsewhere.example', isServiceAccount: true }).gid;
    const team = s.people.addTeam({ workspace: org, name: 'Audited' });
    const project = s.projects.add({ workspace: org, team: team.gid, name: 'Audited project', owner: alice });
    const task = s.tasks.add({ workspace: org, name: 'Doomed task', memberships: [{ project: project.gid }], assignee: alice });
    return { org, project: project.gid, task: task.gid, team: team.gid, alice, bob, outsider };
  }, clock.now);
  m = await startMock({ organization, now: clock.now, hostility: { eventLossRate: 1 } });
  ids = built;
});
afterAll(() => m.close());

const audit = (query = '', token?: string) => m.api(`/workspaces/${ids.org}/audit_log_events${query}`, token ? { token } : {});
const setTier = (tier: string) => m.call(`/_admin/workspaces/${ids.org}/plan`, { method: 'PUT', body: { tier } });

describe('The audit log is read-only: no write or update operations exist for audit log events', () => {
  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s on the audit log is 404 No matching route', async (method) => {
    const res = await m.api(`/workspaces/${ids.org}/audit_log_events`, { method, body: { data: {} } });
    expect(res.status).toBe(404);
    expect(res.body.errors[0].message).toBe('No matching route for request');
  });
});

describe("The audit log is available only to service accounts in enterprise domains, with that service account's personal access token", () => {
  afterEach(async () => {
    await setTier('enterprise_plus');
  });

  it.each(['enterprise', 'enterprise_plus'])("%s: the domain's service account reads it with its personal access token", async (tier) => {
    await setTier(tier);
    const res = await audit();
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
  });

  it.each(['free', 'premium', 'business'])('%s: 402 Payment Required', async (tier) => {
    await setTier(tier);
    const res = await audit();
    expect(res.status).toBe(402);
    expect(res.body.errors[0].message).toBe('The audit log is only available to Enterprise domains.');
  });

  it('a member who is not a service account: 403', async () => {
    const res = await audit('', m.mock.tokenFor(ids.alice));
    expect(res.status).toBe(403);
    expect(res.body.errors[0].message).toBe('The audit log is only available to service accounts.');
  });

  it('the service account with an OAuth token, even with full access: 403', async () => {
    const oauth = (await m.call('/_admin/tokens', { body: { user: m.mock.organization.serviceAccount, kind: 'oauth', scopes: ['default'] } })).body.data.token;
    expect((await m.api('/users/me', { token: oauth })).status).toBe(200);
    const res = await audit('', oauth);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].message).toBe("The audit log requires the service account's personal access token.");
  });

  it('a service account of another domain: 403', async () => {
    const res = await audit('', m.mock.tokenFor(ids.outsider));
    expect(res.status).toBe(403);
    expect(res.body.errors[0].message).toBe('The audit log is only available to service accounts of this domain.');
  });
});

describe('Audit log events are immutable records of security and compliance events, with their actor and context', () => {
  it('records access changes, deletions and exports, naming the API caller and how it authenticated', async () => {
    const before = (await audit()).body.data.length;
    const alice = m.mock.tokenFor(ids.alice);
    const bobMembership = m.mock.model.people.workspaceMembership(ids.bob, ids.org)?.gid as string;
    expect((await m.call(`/_admin/workspace_memberships/${bobMembership}`, { method: 'PUT', body: { is_active: false } })).status).toBe(200);
    expect((await m.api(`/tasks/${ids.task}`, { method: 'DELETE', token: alice })).status).toBe(200);
    const oauth = (await m.call('/_admin/tokens', { body: { user: ids.alice, kind: 'oauth' } })).body.data.token;
    expect((await m.api(`/projects/${ids.project}`, { method: 'PUT', token: oauth, body: { data: { privacy_setting: 'private' } } })).status).toBe(200);
    expect((await m.api('/exports/graph', { body: { data: { parent: ids.project } } })).status).toBe(201);

    const events = (await audit()).body.data.slice(before);
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'user_deactivated',
      'task_deleted',
      'project_privacy_setting_changed',
      'graph_export_started',
    ]);
    const [deactivated, deleted, privacy, exported] = events;
    expect(deactivated).toMatchObject({
      event_category: 'user_access',
      actor: { actor_type: 'system' },
      resource: { resource_type: 'user', gid: ids.bob },
      context: { context_type: 'web' },
    });
    expect(deleted).toMatchObject({
      event_category: 'deletion',
      actor: { actor_type: 'user', gid: ids.alice, name: 'Alice Audit' },
      resource: { resource_type: 'task', gid: ids.task, name: 'Doomed task' },
      context: { context_type: 'api', api_authentication_method: 'personal_access_token' },
    });
    expect(privacy).toMatchObject({
      event_category: 'access_control',
      resource: { gid: ids.project },
      details: { new_value: 'private' },
      context: { api_authentication_method: 'oauth' },
    });
    expect(exported).toMatchObject({ event_category: 'content_export', actor: { gid: m.mock.organization.serviceAccount } });
    for (const e of events) {
      expect(e.gid).toMatch(/^\d+$/);
      expect(new Date(e.created_at).toISOString()).toBe(e.created_at);
    }
  });

  it('keeps every event even when the events stream loses them (delivery there is at most once)', async () => {
    const before = (await audit('?event_type=team_member_added')).body.data.length;
    await m.call('/_admin/team_memberships', { body: { team: ids.team, user: ids.alice } });
    const added = (await audit('?event_type=team_member_added')).body.data;
    expect(added).toHaveLength(before + 1);
    expect(added[added.length - 1]).toMatchObject({ resource: { gid: ids.team }, details: { member: { gid: ids.alice } } });
    const stream = (await m.call('/_admin/events')).body.data as Array<{ resource: { resource_type: string } }>;
    expect(stream.some((e) => e.resource.resource_type === 'team_membership')).toBe(false);
  });
});

describe('The audit log is always paginated: next_page is never null, and polling it returns only newer events', () => {
  it("pages by limit, filters, and a last page's next_page later yields what happened since", async () => {
    const all = (await audit()).body;
    expect(all.next_page).toEqual({ offset: expect.any(String), path: expect.any(String), uri: expect.any(String) });
    expect(all.next_page.path).not.toContain('limit=');
    const total = all.data.length;
    expect(total).toBeGreaterThanOrEqual(3);

    const seen: string[] = [];
    let res = await audit('?limit=2');
    for (let guard = 0; guard < 20 && res.body.data.length > 0; guard++) {
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((e: { gid: string }) => e.gid));
      expect(res.body.next_page).not.toBeNull();
      res = await m.api(res.body.next_page.path);
    }
    expect(seen).toEqual(all.data.map((e: { gid: string }) => e.gid));
    const pollPath: string = res.body.next_page.path;
    expect((await m.api(pollPath)).body.data).toEqual([]);

    clock.advance(1_000);
    await m.api('/exports/graph', { body: { data: { parent: ids.team } } });
    const polled = await m.api(pollPath);
    expect(polled.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['graph_export_started']);
  });

  it('filters by event_type, actor, resource and time; bad filters and forged offsets are 400', async () => {
    const byActor = (await audit(`?actor_gid=${ids.alice}`)).body.data;
    expect(byActor.length).toBeGreaterThan(0);
    expect(byActor.every((e: { actor: { gid: string } }) => e.actor.gid === ids.alice)).toBe(true);
    expect((await audit(`?resource_gid=${ids.task}`)).body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['task_deleted']);
    expect((await audit('?actor_type=system')).body.data.every((e: { actor: { actor_type: string } }) => e.actor.actor_type === 'system')).toBe(true);
    const future = new Date(clock.now() + 60_000).toISOString();
    expect((await audit(`?start_at=${future}`)).body.data).toEqual([]);
    expect((await audit(`?end_at=${future}`)).body.data.length).toBe((await audit()).body.data.length);
    expect((await audit('?start_at=yesterday')).status).toBe(400);
    expect((await audit('?actor_type=robot')).status).toBe(400);
    expect((await audit('?offset=forged')).status).toBe(400);
    expect((await audit('?limit=101')).status).toBe(400);
  });
});
