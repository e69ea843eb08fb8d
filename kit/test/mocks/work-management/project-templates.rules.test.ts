import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

const clock = manualClock(Date.UTC(2025, 6, 1, 15));
let m: RunningMock;
let ids: { org: string; team: string; otherTeam: string; template: string; alice: string; bob: string; stranger: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Template');
    const bob = member(s, org, 'Bob Template');
    const plain = s.people.addWorkspace({ name: 'Elsewhere', isOrganization: false });
    const stranger = s.people.addUser({ name: 'Stranger', email: 'stranger@elsewhere.example' }).gid;
    s.people.addWorkspaceMembership({ user: stranger, workspace: plain.gid });
    const team = s.people.addTeam({ workspace: org, name: 'Launches' });
    const otherTeam = s.people.addTeam({ workspace: org, name: 'Marketing' });
    s.people.addTeamMembership({ team: team.gid, user: alice });
    const template = s.catalog.addProjectTemplate({
      team: team.gid,
      name: 'Launch',
      owner: alice,
      requestedDates: [
        { gid: '1', name: 'Start Date', description: 'When work starts.' },
        { gid: '2', name: 'Launch Date', description: 'When it ships.' },
      ],
      requestedRoles: [{ gid: '1', name: 'Lead' }],
      sections: [
        {
          name: 'Plan',
          tasks: [
            { name: 'Brief', dueOffsetDays: 2, role: '1' },
            { name: 'Kick-off', dueOffsetDays: null, role: null },
          ],
        },
        { name: 'Ship', tasks: [{ name: 'Release', dueOffsetDays: 14, role: '1' }] },
      ],
    });
    return { org, team: team.gid, otherTeam: otherTeam.gid, template: template.gid, alice, bob, stranger };
  }, clock.now);
  m = await startMock({ organization, now: clock.now, hostility: { jobDurationMs: 8_000 } });
  ids = built;
});
afterAll(() => m.close());

const instantiate = (data: Record<string, unknown>, token?: string) =>
  m.api(`/project_templates/${ids.template}/instantiateProject`, { body: { data }, ...(token ? { token } : {}) });
const job = (gid: string) => m.api(`/jobs/${gid}`);

describe('A project template belongs to one team; the team cannot be changed through the API', () => {
  it('the template names its team, and no endpoint writes a template', async () => {
    const res = await m.api(`/project_templates/${ids.template}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      gid: ids.template,
      resource_type: 'project_template',
      name: 'Launch',
      team: { gid: ids.team },
      owner: { gid: ids.alice },
      requested_dates: [
        { gid: '1', name: 'Start Date' },
        { gid: '2', name: 'Launch Date' },
      ],
      requested_roles: [{ gid: '1', name: 'Lead' }],
    });
    for (const method of ['PUT', 'PATCH'])
      expect((await m.api(`/project_templates/${ids.template}`, { method, body: { data: { team: ids.otherTeam } } })).status).toBe(404);
    expect((await m.api(`/project_templates/${ids.template}`)).body.data.team.gid).toBe(ids.team);
  });

  it('templates are listed by team or by workspace (exactly one of them)', async () => {
    const names = (res: { body: { data: Array<{ name: string }> } }) => res.body.data.map((t) => t.name);
    expect(names(await m.api(`/project_templates?team=${ids.team}`))).toEqual(['Launch']);
    expect(names(await m.api(`/project_templates?workspace=${ids.org}`))).toEqual(['Launch']);
    expect(names(await m.api(`/teams/${ids.team}/project_templates`))).toEqual(['Launch']);
    expect(names(await m.api(`/teams/${ids.otherTeam}/project_templates`))).toEqual([]);
    expect((await m.api('/project_templates')).status).toBe(400);
    expect((await m.api(`/project_templates?team=${ids.team}&workspace=${ids.org}`)).status).toBe(400);
    expect((await m.api(`/project_templates/${ids.template}`, { token: m.mock.tokenFor(ids.stranger) })).status).toBe(403);
  });
});

describe('Instantiating a project from a template returns a job; the job completes and yields the project', () => {
  it('the project exists at once but is complete only when the job has succeeded', async () => {
    const alice = m.mock.tokenFor(ids.alice);
    const created = await instantiate(
      {
        name: 'Autumn launch',
        requested_dates: [
          { gid: '1', value: '2025-09-01' },
          { gid: '2', value: '2025-10-01' },
        ],
        requested_roles: [{ gid: '1', value: ids.bob }],
      },
      alice,
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(new RegExp(`/api/1\\.0/jobs/${created.body.data.gid}$`));
    expect(created.body.data).toMatchObject({
      resource_type: 'job',
      resource_subtype: 'instantiate_project',
      status: 'not_started',
      new_project: { gid: expect.any(String), name: 'Autumn launch' },
    });
    const project = created.body.data.new_project.gid as string;
    expect((await m.api(`/projects/${project}/sections`)).body.data).toEqual([]);

    clock.advance(4_000);
    expect((await job(created.body.data.gid)).body.data.status).toBe('in_progress');
    clock.advance(4_000);
    const done = (await job(created.body.data.gid)).body.data;
    expect(done).toMatchObject({ status: 'succeeded', new_project: { gid: project } });

    const p = (await m.api(`/projects/${project}`)).body.data;
    expect(p).toMatchObject({ name: 'Autumn launch', team: { gid: ids.team }, owner: { gid: ids.alice } });
    expect(p.members.map((u: { gid: string }) => u.gid).sort()).toEqual([ids.alice, ids.bob].sort());
    expect((await m.api(`/projects/${project}/sections`)).body.data.map((s: { name: string }) => s.name)).toEqual(['Plan', 'Ship']);
    const tasks = (await m.api(`/projects/${project}/tasks?opt_fields=name,due_on,assignee`)).body.data;
    expect(tasks).toEqual([
      { gid: expect.any(String), name: 'Brief', due_on: '2025-09-03', assignee: { gid: ids.bob, resource_type: 'user' } },
      { gid: expect.any(String), name: 'Kick-off', due_on: null, assignee: null },
      { gid: expect.any(String), name: 'Release', due_on: '2025-09-15', assignee: { gid: ids.bob, resource_type: 'user' } },
    ]);
  });

  it("the new project goes to the template's team unless another team of the organization is named", async () => {
    const res = await instantiate({ name: 'Marketing launch', team: ids.otherTeam });
    expect(res.status).toBe(201);
    expect((await m.api(`/projects/${res.body.data.new_project.gid}`)).body.data.team.gid).toBe(ids.otherTeam);
  });

  it('dates left out default to today; with is_strict they are 422', async () => {
    const strict = await instantiate({ name: 'Strict', is_strict: true, requested_dates: [{ gid: '1', value: '2025-09-01' }] });
    expect(strict.status).toBe(422);
    expect(strict.body.errors[0].message).toBe('requested_dates: No value for Launch Date (2)');
    const lenient = await instantiate({ name: 'Lenient' });
    expect(lenient.status).toBe(201);
    clock.advance(8_000);
    expect((await job(lenient.body.data.gid)).body.data.status).toBe('succeeded');
    const tasks = (await m.api(`/projects/${lenient.body.data.new_project.gid}/tasks?opt_fields=name,due_on`)).body.data;
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    const inTwoDays = new Date(Date.parse(today) + 2 * 86_400_000).toISOString().slice(0, 10);
    expect(tasks.find((t: { name: string }) => t.name === 'Brief').due_on).toBe(inTwoDays);
  });

  it.each([
    [{}, 'name: Missing input'],
    [{ name: 'x', requested_dates: [{ gid: '9', value: '2025-09-01' }] }, 'requested_dates: 9 is not a date variable of this template'],
    [{ name: 'x', requested_dates: [{ gid: '1', value: 'next monday' }] }, 'requested_dates: next monday is not a date (YYYY-MM-DD)'],
    [{ name: 'x', requested_roles: [{ gid: '7', value: 'x' }] }, 'requested_roles: 7 is not a role of this template'],
  ])('%j is refused with 400: %s', async (data, message) => {
    const projects = m.mock.model.indexes.projects.size;
    const res = await instantiate(data);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe(message);
    expect(m.mock.model.indexes.projects.size).toBe(projects);
  });

  it('a role given to someone outside the workspace is refused with 400', async () => {
    const res = await instantiate({ name: 'x', requested_roles: [{ gid: '1', value: ids.stranger }] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe(`requested_roles: User ${ids.stranger} is not a member of this workspace`);
  });

  it('an OAuth token needs projects:write to instantiate', async () => {
    const token = async (scopes: string[]) => (await m.call('/_admin/tokens', { body: { user: ids.alice, kind: 'oauth', scopes } })).body.data.token as string;
    expect((await instantiate({ name: 'Scoped' }, await token(['project_templates:read', 'project_templates:write']))).status).toBe(403);
    expect((await instantiate({ name: 'Scoped' }, await token(['projects:write']))).status).toBe(201);
  });
});

describe('The generated organization has templates to instantiate', () => {
  it('lists them in the organization', async () => {
    const generated = await startMock({ seed: 'templates', size: 'tiny' });
    try {
      const res = await generated.api(`/project_templates?workspace=${generated.mock.organization.organization}&opt_fields=name,requested_dates`);
      expect(res.body.data.map((t: { name: string }) => t.name)).toEqual(['Product launch', 'New hire onboarding']);
      expect(res.body.data[0].requested_dates.map((d: { name: string }) => d.name)).toEqual(['Start Date', 'Launch Date']);
    } finally {
      await generated.close();
    }
  });
});
