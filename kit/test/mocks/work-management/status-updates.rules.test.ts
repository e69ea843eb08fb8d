import { STATUS_TYPES_BY_PARENT } from '../../../src/mocks/work-management/rules/status-updates';
import { handBuiltOrg, member, startMock, type RunningMock } from './mock-harness';

let m: RunningMock;
let ids: { project: string; portfolio: string; goal: string; followers: string[]; projectMemberOnly: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const owner = member(s, org, 'Owner Status');
    const fan = member(s, org, 'Fan Status');
    const quiet = member(s, org, 'Quiet Member');
    const team = s.people.addTeam({ workspace: org, name: 'Status' });
    const project = s.projects.add({ workspace: org, team: team.gid, name: 'Reported project', owner });
    s.projects.addMembership({ parent: project.gid, member: fan });
    s.projects.addMembership({ parent: project.gid, member: quiet });
    project.followers = [owner, fan];
    const portfolio = s.catalog.addPortfolio({ workspace: org, name: 'Reported portfolio', owner });
    const goal = s.catalog.addGoal({ workspace: org, name: 'Reported goal', owner });
    return { project: project.gid, portfolio: portfolio.gid, goal: goal.gid, followers: [owner, fan], projectMemberOnly: quiet };
  });
  m = await startMock({ organization });
  ids = built;
});
afterAll(() => m.close());

const ALL_TYPES = ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped', 'achieved', 'partial', 'missed'];

describe('Status update: allowed status_type by parent', () => {
  it.each([
    ['project', ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped']],
    ['portfolio', ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped']],
    ['goal', ['on_track', 'at_risk', 'off_track', 'achieved', 'partial', 'missed', 'dropped']],
  ] as const)('a %s takes exactly %j', async (kind, allowed) => {
    expect(STATUS_TYPES_BY_PARENT[kind]).toEqual(allowed);
    const parent = ids[kind];
    for (const type of ALL_TYPES) {
      const res = await m.api('/status_updates', { body: { data: { parent, status_type: type, text: `We are ${type}`, title: type } } });
      expect([type, res.status]).toEqual([type, (allowed as readonly string[]).includes(type) ? 201 : 400]);
      if (res.status === 201) expect(res.body.data).toMatchObject({ status_type: type, resource_subtype: `${kind}_status_update`, parent: { gid: parent } });
    }
  });

  it('status_type and text are required', async () => {
    expect((await m.api('/status_updates', { body: { data: { parent: ids.project, text: 'x' } } })).body.errors[0].message).toBe('status_type: Missing input');
    expect((await m.api('/status_updates', { body: { data: { parent: ids.project, status_type: 'on_track' } } })).body.errors[0].message).toBe(
      'text: Missing input',
    );
  });
});

describe('Status update: can be created and deleted, never modified; sent to all followers when created', () => {
  it('create, read, no update route, delete', async () => {
    const created = await m.api('/status_updates', { body: { data: { parent: ids.project, status_type: 'at_risk', text: 'Slipping', title: 'Week 3' } } });
    const gid = created.body.data.gid;
    expect(created.headers.get('location')).toBe(`${m.base}/status_updates/${gid}`);
    const put = await m.api(`/status_updates/${gid}`, { method: 'PUT', body: { data: { status_type: 'on_track' } } });
    expect(put.status).toBe(404);
    expect((await m.api(`/status_updates/${gid}`)).body.data.status_type).toBe('at_risk');
    expect((await m.api(`/status_updates/${gid}`, { method: 'DELETE' })).status).toBe(200);
    expect((await m.api(`/status_updates/${gid}`)).status).toBe(404);
  });

  it('notifies every follower of the parent, and only them', async () => {
    const created = await m.api('/status_updates', { body: { data: { parent: ids.project, status_type: 'on_track', text: 'Good' } } });
    const notes = (await m.call('/_admin/notifications')).body.data.filter((n: { about: string }) => n.about === created.body.data.gid);
    expect(notes.map((n: { to: string }) => n.to).sort()).toEqual([...ids.followers].sort());
    expect(notes.map((n: { to: string }) => n.to)).not.toContain(ids.projectMemberOnly);
  });

  it('lists by parent, newest last, with created_since', async () => {
    const list = await m.api(`/status_updates?parent=${ids.goal}&limit=100`);
    expect(list.body.data.length).toBeGreaterThan(0);
    const future = await m.api(`/status_updates?parent=${ids.goal}&created_since=2100-01-01T00:00:00Z`);
    expect(future.body.data).toEqual([]);
  });
});

describe('Project status: a color code green (on track), yellow (at risk), red (behind), blue (on hold); created and deleted, never modified; notifies all project followers', () => {
  it.each(['green', 'yellow', 'red', 'blue'])('%s is a valid color', async (color) => {
    const res = await m.api(`/projects/${ids.project}/project_statuses`, { body: { data: { color, text: `Status ${color}` } } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ color, text: `Status ${color}`, resource_type: 'project_status' });
  });

  it.each(['purple', 'GREEN', '', 'complete'])('%j is rejected', async (color) => {
    const res = await m.api(`/projects/${ids.project}/project_statuses`, { body: { data: { color, text: 'x' } } });
    expect(res.status).toBe(400);
  });

  it('cannot be modified, can be deleted, and notifies the followers', async () => {
    const created = await m.api(`/projects/${ids.project}/project_statuses`, { body: { data: { color: 'blue', text: 'Paused' } } });
    const gid = created.body.data.gid;
    expect((await m.api(`/project_statuses/${gid}`, { method: 'PUT', body: { data: { color: 'green' } } })).status).toBe(404);
    expect((await m.api(`/project_statuses/${gid}`)).body.data.color).toBe('blue');
    const notes = (await m.call('/_admin/notifications')).body.data.filter((n: { about: string }) => n.about === gid);
    expect(notes.map((n: { to: string }) => n.to).sort()).toEqual([...ids.followers].sort());
    expect((await m.api(`/project_statuses/${gid}`, { method: 'DELETE' })).status).toBe(200);
    expect((await m.api(`/project_statuses/${gid}`)).status).toBe(404);
  });
});
