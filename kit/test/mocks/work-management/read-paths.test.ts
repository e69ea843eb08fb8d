/**
 * The crawl the adapter will do, end to end over HTTP: every read path it needs is complete
 * (paginated everywhere) and together they reach every user, team, project and task.
 */
import { startMock, walk, type RunningMock } from './mock-harness';

let m: RunningMock;
let org: string;

beforeAll(async () => {
  m = await startMock({ seed: 'crawl', size: 'small', hostility: { rateLimitPerMinute: 0 } });
  org = m.mock.organization.organization;
});
afterAll(() => m.close());

describe('the directory: users with email, name, active and guest flags; teams and their members', () => {
  it('users and workspace memberships cover the workspace', async () => {
    const s = m.mock.model;
    const users = await walk(m, `/users?workspace=${org}&opt_fields=email,name`);
    const memberships = await walk(m, `/workspaces/${org}/workspace_memberships?opt_fields=user,is_active,is_guest,is_admin`);
    expect(users.length).toBe(s.indexes.workspaceMembershipsByWorkspace.get(org)?.length);
    expect(users.every((u) => typeof u.email === 'string' && u.email.includes('@') && typeof u.name === 'string')).toBe(true);
    expect(memberships.some((x) => x.is_active === false)).toBe(true);
    expect(memberships.some((x) => x.is_guest === true)).toBe(true);
    expect(new Set(memberships.map((x) => x.user.gid))).toEqual(new Set(users.map((u) => u.gid)));
  });

  it('teams and team memberships, with guest and limited-access flags', async () => {
    const teams = await walk(m, `/workspaces/${org}/teams?opt_fields=name,visibility`);
    expect(teams.length).toBe(m.mock.model.indexes.teamsByWorkspace.get(org)?.length);
    let total = 0;
    let limited = 0;
    for (const team of teams) {
      const members = await walk(m, `/teams/${team.gid}/team_memberships?opt_fields=user.email,is_guest,is_limited_access,is_admin`);
      total += members.length;
      limited += members.filter((x) => x.is_limited_access).length;
      expect(members.every((x) => typeof x.user.email === 'string')).toBe(true);
    }
    expect(total).toBe(m.mock.model.indexes.teamMemberships.size);
    expect(limited).toBeGreaterThan(0);
  });
});

describe('projects: settings, memberships of users and teams, followers', () => {
  it('lists every project with privacy, team, archived; /memberships gives users and teams', async () => {
    const projects = await walk(m, `/workspaces/${org}/projects?opt_fields=name,archived,privacy_setting,team,members,followers`);
    expect(projects.length).toBe(m.mock.model.indexes.projectsByWorkspace.get(org)?.length);
    expect(projects.some((p) => p.archived)).toBe(true);
    const archivedOnly = await walk(m, `/workspaces/${org}/projects?archived=true`);
    expect(archivedOnly.length).toBe(projects.filter((p) => p.archived).length);
    let teamMembers = 0;
    for (const p of projects) {
      const memberships = await walk(m, `/memberships?parent=${p.gid}&opt_fields=member,member.name,access_level`);
      teamMembers += memberships.filter((x) => x.member.resource_type === 'team').length;
      const users = memberships.filter((x) => x.member.resource_type === 'user').map((x) => x.member.gid);
      expect(new Set(users)).toEqual(new Set(p.members.map((u: { gid: string }) => u.gid)));
      for (const f of p.followers) expect(users).toContain(f.gid);
      // The legacy list leaves team members out.
      const legacy = await walk(m, `/projects/${p.gid}/project_memberships`);
      expect(legacy.length).toBe(users.length);
    }
    expect(teamMembers).toBeGreaterThan(0);
  });
});

describe('tasks: per project, subtasks, tasks in no project, stories, attachments', () => {
  it('projects + subtasks + user task lists together reach every task of the workspace', async () => {
    const s = m.mock.model;
    const found = new Set<string>();
    const queue: string[] = [];
    for (const p of await walk(m, `/workspaces/${org}/projects`)) {
      for (const t of await walk(m, `/projects/${p.gid}/tasks?opt_fields=name,num_subtasks,modified_at`)) {
        found.add(t.gid);
        if (t.num_subtasks > 0) queue.push(t.gid);
      }
    }
    for (const u of await walk(m, `/users?workspace=${org}`)) {
      const list = await m.api(`/users/${u.gid}/user_task_list?workspace=${org}`);
      expect(list.status).toBe(200);
      for (const t of await walk(m, `/user_task_lists/${list.body.data.gid}/tasks?opt_fields=num_subtasks`)) {
        found.add(t.gid);
        if (t.num_subtasks > 0) queue.push(t.gid);
      }
    }
    while (queue.length > 0) {
      const parent = queue.pop() as string;
      for (const t of await walk(m, `/tasks/${parent}/subtasks?opt_fields=num_subtasks`)) {
        if (!found.has(t.gid) && t.num_subtasks > 0) queue.push(t.gid);
        found.add(t.gid);
      }
    }
    expect([...found].sort()).toEqual([...(s.indexes.tasksByWorkspace.get(org) ?? [])].sort());
  });

  it('workspace task search walks every task by created_at (no offsets; at most 100 per call)', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const res = await m.api(
        `/workspaces/${org}/tasks/search?sort_by=created_at&sort_ascending=true&limit=100&opt_fields=created_at${after ? `&created_at.after=${encodeURIComponent(after)}` : ''}`,
      );
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('next_page');
      if (res.body.data.length === 0) break;
      seen.push(...res.body.data.map((t: { gid: string }) => t.gid));
      after = res.body.data[res.body.data.length - 1].created_at;
    }
    expect(seen.length).toBe(m.mock.model.indexes.tasksByWorkspace.get(org)?.length);
    expect(new Set(seen).size).toBe(seen.length);
    const noProject = await m.api(`/workspaces/${org}/tasks/search?has_project=false&is_subtask=false&limit=100`);
    expect(noProject.body.data.length).toBeGreaterThan(0);
  });

  it('modified_since returns exactly the tasks modified since then', async () => {
    const s = m.mock.model;
    const project = [...s.indexes.tasksByProject.entries()].sort((a, b) => b[1].length - a[1].length)[0] as [string, string[]];
    const times = project[1].map((g) => s.indexes.tasks.get(g)?.modifiedAt as number).sort((a, b) => a - b);
    const since = new Date(times[Math.floor(times.length / 2)] as number).toISOString();
    const expected = project[1].filter((g) => (s.indexes.tasks.get(g)?.modifiedAt as number) >= Date.parse(since));
    for (const path of [`/projects/${project[0]}/tasks?modified_since=${since}`, `/tasks?project=${project[0]}&modified_since=${since}`]) {
      expect((await walk(m, path)).map((t) => t.gid).sort()).toEqual([...expected].sort());
    }
    expect((await m.api(`/projects/${project[0]}/tasks?modified_since=yesterday`)).status).toBe(400);
  });

  it('stories and attachments per task, with fresh download_urls', async () => {
    const s = m.mock.model;
    const withFiles = [...s.indexes.attachmentsByParent.entries()]
      .filter(([parent, list]) => s.indexes.kindOf(parent) === 'task' && list.length > 0)
      .slice(0, 5);
    for (const [task, list] of withFiles) {
      const attachments = await walk(m, `/attachments?parent=${task}&opt_fields=name,host,size,download_url,created_at`);
      expect(attachments.map((a) => a.gid)).toEqual(list);
      for (const a of attachments) if (a.host === 'asana') expect(a.download_url).toMatch(/\/_downloads\/attachments\//);
      const stories = await walk(m, `/tasks/${task}/stories?opt_fields=type,text,created_by.email,created_at`);
      expect(stories.length).toBe(s.indexes.storiesByTask.get(task)?.length ?? 0);
    }
  });

  it("a task's full record carries what the crawler maps", async () => {
    const task = [...m.mock.model.indexes.tasks.values()].find((t) => t.memberships.length > 1 && t.followers.length > 1);
    const res = await m.api(
      `/tasks/${task?.gid}?opt_fields=name,notes,html_notes,assignee.email,followers.email,memberships.project.name,memberships.section.name,parent,created_at,modified_at,completed,permalink_url,custom_fields.name,custom_fields.display_value,custom_fields.enabled,workspace`,
    );
    expect(res.body.data).toMatchObject({
      gid: task?.gid,
      name: task?.name,
      notes: expect.any(String),
      html_notes: expect.stringMatching(/^<body>.*<\/body>$/s),
      followers: expect.arrayContaining([expect.objectContaining({ email: expect.any(String) })]),
      permalink_url: expect.stringMatching(/^https:\/\/.*\/task\//),
      memberships: expect.arrayContaining([{ project: expect.objectContaining({ name: expect.any(String) }), section: expect.anything() }]),
    });
  });
});

describe('every read path of the HTTP surface answers', () => {
  it('returns 200 with a data envelope on each documented GET', async () => {
    const s = m.mock.model;
    const project =
      [...s.indexes.projects.values()].find(
        (p) =>
          p.workspace === org && (s.indexes.tasksByProject.get(p.gid)?.length ?? 0) > 0 && (s.indexes.portfolioSettingsByProject.get(p.gid)?.length ?? 0) > 0,
      ) ?? [...s.indexes.projects.values()][0];
    const p = project?.gid as string;
    const task = s.indexes.tasksByProject.get(p)?.[0] as string;
    const team = s.indexes.teamsByWorkspace.get(org)?.[0] as string;
    const user = s.indexes.list(s.indexes.workspaceMembershipsByWorkspace.get(org), s.indexes.workspaceMemberships)[0]?.user as string;
    const section = s.indexes.sectionsByProject.get(p)?.[0] as string;
    const tag = s.indexes.tagsByWorkspace.get(org)?.[0] as string;
    const list = s.people.userTaskListOf(user, org)?.gid as string;
    const portfolio = s.indexes.portfoliosByWorkspace.get(org)?.[0] as string;
    const goal = s.indexes.goalsByWorkspace.get(org)?.[0] as string;
    const field = s.indexes.customFieldsByWorkspace.get(org)?.[0] as string;
    const story = s.indexes.storiesByTask.get(task)?.[0];
    const membership = s.indexes.membershipsByParent.get(p)?.[0] as string;
    const teamMembership = s.indexes.teamMembershipsByTeam.get(team)?.[0] as string;
    const wsMembership = s.indexes.workspaceMembershipsByWorkspace.get(org)?.[0] as string;
    const paths = [
      '/workspaces',
      `/workspaces/${org}`,
      `/workspaces/${org}/users`,
      `/workspaces/${org}/users/${user}`,
      `/workspaces/${org}/workspace_memberships`,
      `/workspace_memberships/${wsMembership}`,
      `/users?workspace=${org}&limit=10`,
      `/users?team=${team}`,
      `/users/${user}`,
      `/users/me`,
      `/users/${user}/workspace_memberships`,
      `/users/${user}/teams?organization=${org}`,
      `/users/${user}/team_memberships?workspace=${org}`,
      `/users/${user}/user_task_list?workspace=${org}`,
      `/user_task_lists/${list}`,
      `/user_task_lists/${list}/tasks?limit=10`,
      `/workspaces/${org}/teams`,
      `/teams/${team}`,
      `/teams/${team}/users`,
      `/teams/${team}/team_memberships`,
      `/team_memberships?team=${team}`,
      `/team_memberships?user=${user}&workspace=${org}`,
      `/team_memberships/${teamMembership}`,
      `/projects?workspace=${org}&limit=10`,
      `/projects?team=${team}`,
      `/workspaces/${org}/projects`,
      `/teams/${team}/projects?archived=false`,
      `/projects/${p}`,
      `/tasks/${task}/projects`,
      `/memberships?parent=${p}`,
      `/memberships?member=${team}&resource_subtype=project_membership`,
      `/memberships/${membership}`,
      `/projects/${p}/project_memberships`,
      `/project_memberships/${membership}`,
      `/projects/${p}/sections`,
      `/sections/${section}`,
      `/sections/${section}/tasks`,
      `/projects/${p}/tasks?limit=5`,
      `/tasks?project=${p}&limit=5`,
      `/tasks?section=${section}`,
      `/tasks?tag=${tag}`,
      `/tasks?assignee=${user}&workspace=${org}&limit=5`,
      `/tasks?user_task_list=${list}&limit=5`,
      `/tasks/${task}`,
      `/tasks/${task}/subtasks`,
      `/tasks/${task}/stories`,
      `/tasks/${task}/tags`,
      `/tasks/${task}/attachments`,
      ...(story ? [`/stories/${story}`] : []),
      `/attachments?parent=${task}`,
      `/tags?workspace=${org}`,
      `/workspaces/${org}/tags`,
      `/tags/${tag}`,
      `/tags/${tag}/tasks`,
      `/workspaces/${org}/custom_fields`,
      `/custom_fields/${field}`,
      `/projects/${p}/custom_field_settings`,
      `/custom_types?project=${p}`,
      `/projects/${p}/project_statuses`,
      `/projects/${p}/project_portfolio_settings`,
      `/status_updates?parent=${p}`,
      `/portfolios?workspace=${org}`,
      `/portfolios/${portfolio}`,
      `/portfolios/${portfolio}/items`,
      `/portfolios/${portfolio}/custom_field_settings`,
      `/portfolios/${portfolio}/portfolio_memberships`,
      `/goals?workspace=${org}`,
      `/goals?team=${team}`,
      `/goals/${goal}`,
      `/workspaces/${org}/tasks/search?text=the`,
    ];
    for (const path of paths) {
      const res = await m.api(path);
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.body).toHaveProperty('data');
    }
  });
});
