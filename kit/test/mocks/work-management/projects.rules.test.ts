import fc from 'fast-check';
import { handBuiltOrg, member, startMock, type RunningMock } from './mock-harness';

let m: RunningMock;
let ids: {
  org: string;
  plain: string;
  team: string;
  otherTeam: string;
  users: string[];
  project: string;
  bug: string;
  request: string;
  typed: string[];
  untyped: string[];
};

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const plain = s.people.addWorkspace({ name: 'Plain', isOrganization: false }).gid;
    const users = ['Ann', 'Ben', 'Cai', 'Dee', 'Eli'].map((n) => member(s, org, `${n} Proj`));
    for (const u of users) s.people.addWorkspaceMembership({ user: u, workspace: plain });
    const team = s.people.addTeam({ workspace: org, name: 'Home team' });
    const otherTeam = s.people.addTeam({ workspace: org, name: 'Away team' });
    const project = s.projects.add({ workspace: org, team: team.gid, name: 'Followed', owner: users[0] as string });
    const bug = s.catalog.addCustomType({ workspace: org, name: 'Bug' });
    const request = s.catalog.addCustomType({ workspace: org, name: 'Request' });
    const typed = [
      s.tasks.add({ workspace: org, name: 'bug 1', memberships: [{ project: project.gid }], customType: bug.gid }).gid,
      s.tasks.add({ workspace: org, name: 'request 1', memberships: [{ project: project.gid }], customType: request.gid }).gid,
    ];
    const untyped = [s.tasks.add({ workspace: org, name: 'plain 1', memberships: [{ project: project.gid }] }).gid];
    return { org, plain, team: team.gid, otherTeam: otherTeam.gid, users, project: project.gid, bug: bug.gid, request: request.gid, typed, untyped };
  });
  m = await startMock({ organization });
  ids = built;
});
afterAll(() => m.close());

const members = async (project: string): Promise<string[]> =>
  (await m.api(`/projects/${project}?opt_fields=members`)).body.data.members.map((u: { gid: string }) => u.gid);
const followers = async (project: string): Promise<string[]> =>
  (await m.api(`/projects/${project}?opt_fields=followers`)).body.data.followers.map((u: { gid: string }) => u.gid);

describe('Project followers are a subset of members', () => {
  it('adding a follower adds the user as a member if not already one', async () => {
    const [, ben] = ids.users as [string, string];
    expect(await members(ids.project)).not.toContain(ben);
    const res = await m.api(`/projects/${ids.project}/addFollowers`, { body: { data: { followers: ben } } });
    expect(res.status).toBe(200);
    expect(await followers(ids.project)).toContain(ben);
    expect(await members(ids.project)).toContain(ben);
    const memberships = await m.api(`/memberships?parent=${ids.project}`);
    expect(memberships.body.data.some((x: { member: { gid: string } }) => x.member.gid === ben)).toBe(true);
  });

  it('removing a follower leaves membership unchanged', async () => {
    const [, ben] = ids.users as [string, string];
    await m.api(`/projects/${ids.project}/removeFollowers`, { body: { data: { followers: [ben] } } });
    expect(await followers(ids.project)).not.toContain(ben);
    expect(await members(ids.project)).toContain(ben);
  });

  it('removing a member also removes them from the followers', async () => {
    const [, , cai] = ids.users as [string, string, string];
    await m.api(`/projects/${ids.project}/addFollowers`, { body: { data: { followers: [cai] } } });
    await m.api(`/projects/${ids.project}/removeMembers`, { body: { data: { members: [cai] } } });
    expect(await followers(ids.project)).not.toContain(cai);
    expect(await members(ids.project)).not.toContain(cai);
  });

  it('holds after any sequence of follower and member changes (property)', async () => {
    const ops = fc.array(fc.tuple(fc.constantFrom('addFollowers', 'removeFollowers', 'addMembers', 'removeMembers'), fc.integer({ min: 0, max: 4 })), {
      minLength: 1,
      maxLength: 12,
    });
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        for (const [op, i] of sequence) {
          const user = ids.users[i] as string;
          const field = op.endsWith('Members') ? 'members' : 'followers';
          await m.api(`/projects/${ids.project}/${op}`, { body: { data: { [field]: [user] } } });
        }
        const mem = await members(ids.project);
        for (const f of await followers(ids.project)) expect(mem).toContain(f);
      }),
      { numRuns: 15 },
    );
  });
});

describe('A project in an organization is shared with one team; the team cannot be changed through the API', () => {
  it('creating a project in an organization needs a team', async () => {
    const res = await m.api('/projects', { body: { data: { workspace: ids.org, name: 'No team' } } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('team: Missing input');
  });

  it('the team cannot be changed', async () => {
    const res = await m.api(`/projects/${ids.project}`, { method: 'PUT', body: { data: { team: ids.otherTeam } } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('team: Cannot write this property');
    expect((await m.api(`/projects/${ids.project}`)).body.data.team.gid).toBe(ids.team);
    // Other properties still update.
    const renamed = await m.api(`/projects/${ids.project}`, { method: 'PUT', body: { data: { name: 'Followed (renamed)' } } });
    expect(renamed.body.data.name).toBe('Followed (renamed)');
  });

  it('a project in a non-organization workspace has no team and must not be given one', async () => {
    const ok = await m.api('/projects', { body: { data: { workspace: ids.plain, name: 'Teamless' } } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.team).toBeNull();
    const bad = await m.api('/projects', { body: { data: { workspace: ids.plain, team: ids.team, name: 'Teamed' } } });
    expect(bad.status).toBe(400);
    const put = await m.api(`/projects/${ok.body.data.gid}`, { method: 'PUT', body: { data: { team: ids.team } } });
    expect(put.status).toBe(400);
  });
});

describe('A portfolio holds at most 1500 items and at most 20 custom fields', () => {
  it('the 1501st item is rejected', async () => {
    const s = m.mock.model;
    const portfolio = (await m.api('/portfolios', { body: { data: { workspace: ids.org, name: 'Huge', owner: ids.users[0] } } })).body.data.gid;
    const p = s.indexes.portfolios.get(portfolio) as { items: string[] };
    for (let i = 0; i < 1499; i++) p.items.push(s.projects.add({ workspace: ids.org, team: ids.team, name: `Item ${i}` }).gid);
    const extra = [
      s.projects.add({ workspace: ids.org, team: ids.team, name: 'Item 1499' }).gid,
      s.projects.add({ workspace: ids.org, team: ids.team, name: 'Item 1500' }).gid,
    ];
    expect((await m.api(`/portfolios/${portfolio}/addItem`, { body: { data: { item: extra[0] } } })).status).toBe(200);
    expect(p.items).toHaveLength(1500);
    const over = await m.api(`/portfolios/${portfolio}/addItem`, { body: { data: { item: extra[1] } } });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toMatch(/at most 1500 items/);
    const items = await m.api(`/portfolios/${portfolio}/items?limit=100`);
    expect(items.body.next_page).not.toBeNull();
  });

  it('the 21st custom field is rejected', async () => {
    const portfolio = (await m.api('/portfolios', { body: { data: { workspace: ids.org, name: 'Fields', owner: ids.users[0] } } })).body.data.gid;
    for (let i = 0; i < 21; i++) {
      const f = await m.api('/custom_fields', { body: { data: { workspace: ids.org, name: `PF${i}`, resource_subtype: 'number', precision: 1 } } });
      const res = await m.api(`/portfolios/${portfolio}/addCustomFieldSetting`, { body: { data: { custom_field: f.body.data.gid } } });
      expect(res.status).toBe(i < 20 ? 200 : 400);
    }
  });
});

describe('custom_type filter: unknown gid gives 400; empty string returns objects with no custom type; omitted means no filter', () => {
  const names = async (query: string) => (await m.api(`/projects/${ids.project}/tasks${query}`)).body;

  it('omitted: every task', async () => {
    const body = await names('');
    expect(body.data.map((t: { gid: string }) => t.gid).sort()).toEqual([...ids.typed, ...ids.untyped].sort());
  });

  it('a known gid: tasks of that type only', async () => {
    expect((await names(`?custom_type=${ids.bug}`)).data.map((t: { gid: string }) => t.gid)).toEqual([ids.typed[0]]);
  });

  it('empty string: tasks with no custom type', async () => {
    expect((await names('?custom_type=')).data.map((t: { gid: string }) => t.gid)).toEqual(ids.untyped);
  });

  it('unknown gid: 400', async () => {
    const res = await m.api(`/projects/${ids.project}/tasks?custom_type=1999999999999999`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('custom_type: Unknown object: 1999999999999999');
    expect((await m.api(`/tasks?project=${ids.project}&custom_type=1999999999999999`)).status).toBe(400);
  });
});

describe("A task's memberships property lists, per project, the section it is in", () => {
  it('lists {project, section} for each project', async () => {
    const s = m.mock.model;
    const section = s.projects.addSection({ project: ids.project, name: 'Doing' });
    const task = s.indexes.tasks.get(ids.untyped[0] as string) as never;
    s.tasks.addToProject(task, ids.project, section.gid);
    const res = await m.api(`/tasks/${ids.untyped[0]}?opt_fields=memberships.project.name,memberships.section.name`);
    expect(res.body.data.memberships).toEqual([{ project: { gid: ids.project, name: expect.any(String) }, section: { gid: section.gid, name: 'Doing' } }]);
  });
});
