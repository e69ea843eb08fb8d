/**
 * The oracle on a small hand-built organization: every expected audience below is written out by
 * hand from the rules of reference §6, not computed, so the oracle is checked independently.
 */
import type { WorkManagementStore } from '../../../src/mocks/work-management/model';
import { createVisibilityOracle } from '../../../src/mocks/work-management/visibility-oracle';
import { handBuiltOrg, member, startMock, type RunningMock } from './mock-harness';

function build() {
  return handBuiltOrg((s, org) => {
    const u = {
      ann: member(s, org, 'Ann Member'),
      ben: member(s, org, 'Ben Member'),
      cat: member(s, org, 'Cat Bystander'),
      tess: member(s, org, 'Tess TeamT'),
      ulla: member(s, org, 'Ulla TeamU'),
      lam: member(s, org, 'Lam Limited'),
      gia: member(s, org, 'Gia Guest', { isGuest: true }),
      gus: member(s, org, 'Gus GuestOnTeam', { isGuest: true }),
      ivo: member(s, org, 'Ivo Inactive', { isActive: false }),
    };
    const T = s.people.addTeam({ workspace: org, name: 'T', visibility: 'public' });
    const U = s.people.addTeam({ workspace: org, name: 'U', visibility: 'secret' });
    s.people.addTeamMembership({ team: T.gid, user: u.tess });
    s.people.addTeamMembership({ team: T.gid, user: u.lam, isLimitedAccess: true });
    s.people.addTeamMembership({ team: T.gid, user: u.gus, isGuest: true });
    s.people.addTeamMembership({ team: T.gid, user: u.ivo });
    s.people.addTeamMembership({ team: U.gid, user: u.ulla });

    const pub = s.projects.add({ workspace: org, team: T.gid, name: 'Public', privacySetting: 'public_to_workspace' });
    s.projects.addMembership({ parent: pub.gid, member: u.ann });
    const teamOnly = s.projects.add({ workspace: org, team: T.gid, name: 'Team only', privacySetting: 'private_to_team' });
    s.projects.addMembership({ parent: teamOnly.gid, member: u.ben });
    const priv = s.projects.add({ workspace: org, team: T.gid, name: 'Private, shared with U', privacySetting: 'private' });
    s.projects.addMembership({ parent: priv.gid, member: u.ann, accessLevel: 'viewer' });
    s.projects.addMembership({ parent: priv.gid, member: U.gid });
    const inherit = s.projects.add({ workspace: org, team: U.gid, name: 'Inherits portfolio access', privacySetting: 'private' });
    s.projects.addMembership({ parent: inherit.gid, member: u.ben });
    const portfolio = s.catalog.addPortfolio({ workspace: org, name: 'Portfolio', owner: u.cat });
    s.catalog.addProjectPortfolioSetting({ project: inherit.gid, portfolio: portfolio.gid, isAccessControlInherited: true });
    const noInherit = s.projects.add({ workspace: org, team: U.gid, name: 'Does not inherit', privacySetting: 'private' });
    s.catalog.addProjectPortfolioSetting({ project: noInherit.gid, portfolio: portfolio.gid, isAccessControlInherited: false });

    const t = {
      inPublic: s.tasks.add({ workspace: org, name: 'in public', memberships: [{ project: pub.gid }], followers: [u.gia] }).gid,
      inTeamOnly: s.tasks.add({ workspace: org, name: 'in team only', memberships: [{ project: teamOnly.gid }] }).gid,
      inPrivate: s.tasks.add({ workspace: org, name: 'in private', memberships: [{ project: priv.gid }], assignee: u.lam }).gid,
      multiHomed: s.tasks.add({ workspace: org, name: 'multi-homed', memberships: [{ project: teamOnly.gid }, { project: priv.gid }] }).gid,
      noProject: s.tasks.add({ workspace: org, name: 'no project', assignee: u.cat, followers: [u.gia, u.ivo] }).gid,
      subtask: '',
      inherited: s.tasks.add({ workspace: org, name: 'inherited', memberships: [{ project: inherit.gid }] }).gid,
      notInherited: s.tasks.add({ workspace: org, name: 'not inherited', memberships: [{ project: noInherit.gid }] }).gid,
      inactiveOnly: s.tasks.add({ workspace: org, name: 'only an inactive follower', followers: [u.ivo] }).gid,
    };
    t.subtask = s.tasks.add({ workspace: org, name: 'subtask of private', parent: t.inPrivate, followers: [u.ben] }).gid;

    const plain = s.people.addWorkspace({ name: 'Plain', isOrganization: false });
    s.people.addWorkspaceMembership({ user: u.ann, workspace: plain.gid });
    s.people.addWorkspaceMembership({ user: u.cat, workspace: plain.gid });
    s.people.addWorkspaceMembership({ user: u.ben, workspace: plain.gid, isActive: false });
    const plainPublic = s.projects.add({ workspace: plain.gid, team: null, name: 'Plain public', privacySetting: 'public_to_workspace' });
    const plainTask = s.tasks.add({ workspace: plain.gid, name: 'plain', memberships: [{ project: plainPublic.gid }] }).gid;

    const a = {
      onPrivate: s.tasks.addAttachment({ parent: t.inPrivate, name: 'spec.pdf', kind: 'pdf' }).gid,
      onNoProject: s.tasks.addAttachment({ parent: t.noProject, name: 'notes.txt', kind: 'txt' }).gid,
      keyResource: s.tasks.addAttachment({ parent: priv.gid, name: 'brief.docx', kind: 'docx' }).gid,
    };
    const story = s.tasks.addStory({ target: t.noProject, text: 'hi', createdBy: u.cat }).gid;
    return { u, T: T.gid, U: U.gid, projects: { pub: pub.gid, teamOnly: teamOnly.gid, priv: priv.gid, inherit: inherit.gid }, t, a, story, plainTask };
  });
}

const sorted = (gids: string[]): string[] => [...gids].sort((x, y) => x.length - y.length || (x < y ? -1 : 1));

describe('visibility oracle: the rules of §6 on a hand-built organization', () => {
  const { organization, built: b } = build();
  const s: WorkManagementStore = organization.store;
  const oracle = createVisibilityOracle(s);
  const { u, t, a } = b;
  const allActiveNonGuests = [u.ann, u.ben, u.cat, u.tess, u.ulla, u.lam];

  it('public_to_workspace: members, team members (a guest on the team included) and every active non-guest member; other guests excluded', () => {
    expect(oracle.visibleTo('task', t.inPublic)).toEqual(sorted([...allActiveNonGuests, u.gus, u.gia]));
    // Gia sees it only as a follower: without that, guests are not organization members.
    expect(oracle.explain('task', t.inPublic)?.get(u.gia)).toEqual([`follower of task ${t.inPublic}`]);
  });

  it('private_to_team: project members plus the team, limited-access members excluded', () => {
    expect(oracle.visibleTo('task', t.inTeamOnly)).toEqual(sorted([u.ben, u.tess, u.gus]));
    expect(oracle.canSee(u.lam, 'task', t.inTeamOnly)).toBe(false);
  });

  it('private: user members and the members of member teams (any access level), plus the assignee', () => {
    expect(oracle.visibleTo('task', t.inPrivate)).toEqual(sorted([u.ann, u.ulla, u.lam]));
    expect(oracle.canSee(u.tess, 'task', t.inPrivate)).toBe(false); // the project's own team is not enough
  });

  it('multi-homed tasks are visible through any of their projects (the union)', () => {
    expect(oracle.visibleTo('task', t.multiHomed)).toEqual(sorted([u.ben, u.tess, u.gus, u.ann, u.ulla]));
  });

  it('a task in no project: its followers and assignee only', () => {
    expect(oracle.visibleTo('task', t.noProject)).toEqual(sorted([u.cat, u.gia]));
  });

  it('inactive users are excluded everywhere', () => {
    for (const gid of oracle.gids('task')) expect(oracle.canSee(u.ivo, 'task', gid)).toBe(false);
    expect(oracle.visibleTo('task', t.inactiveOnly)).toEqual([]);
  });

  it("a subtask is judged on its own projects, followers and assignee (not its parent's)", () => {
    expect(oracle.visibleTo('task', t.subtask)).toEqual([u.ben]);
    const inheriting = createVisibilityOracle(s, { subtasksInheritParent: true });
    expect(inheriting.visibleTo('task', t.subtask)).toEqual(sorted([u.ben, u.ann, u.ulla, u.lam]));
  });

  it("portfolio members reach a project only when it inherits the portfolio's access control", () => {
    expect(oracle.visibleTo('task', t.inherited)).toEqual(sorted([u.ben, u.cat]));
    expect(oracle.visibleTo('task', t.notInherited)).toEqual([]);
  });

  it("attachments and stories carry their task's audience; a project attachment carries the project's", () => {
    expect(oracle.visibleTo('attachment', a.onPrivate)).toEqual(oracle.visibleTo('task', t.inPrivate));
    expect(oracle.visibleTo('attachment', a.onNoProject)).toEqual(sorted([u.cat, u.gia]));
    expect(oracle.visibleTo('attachment', a.keyResource)).toEqual(sorted([u.ann, u.ulla]));
    expect(oracle.visibleTo('story', b.story)).toEqual(sorted([u.cat, u.gia]));
  });

  it('in a plain workspace, public means every active member of that workspace', () => {
    expect(oracle.visibleTo('task', b.plainTask)).toEqual(sorted([u.ann, u.cat]));
  });

  it('unknown and deleted objects have no audience', () => {
    expect(oracle.visibleTo('task', '1')).toBeUndefined();
    expect(oracle.canSee(u.ann, 'task', '1')).toBe(false);
  });

  it('the bulk form lists every object once with the same audiences', () => {
    const all = [...oracle.all('task')];
    expect(all.map((v) => v.gid).sort()).toEqual(oracle.gids('task').sort());
    for (const v of all) expect(v.visibleTo).toEqual(oracle.visibleTo('task', v.gid));
    expect(oracle.many('attachment', [a.onPrivate, '1'])).toEqual([
      { type: 'attachment', gid: a.onPrivate, visibleTo: oracle.visibleTo('attachment', a.onPrivate) },
    ]);
  });
});

describe('visibility oracle over HTTP, and mutations that change it', () => {
  let m: RunningMock;
  const { organization, built: b } = build();
  beforeAll(async () => {
    m = await startMock({ organization });
  });
  afterAll(() => m.close());

  it('GET /_oracle/visibility answers one object, with reasons on request', async () => {
    const res = await m.call(`/_oracle/visibility?type=task&gid=${b.t.noProject}&explain=true`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      type: 'task',
      gid: b.t.noProject,
      visible_to: sorted([b.u.cat, b.u.gia]),
      reasons: { [b.u.cat]: [`assignee of task ${b.t.noProject}`], [b.u.gia]: [`follower of task ${b.t.noProject}`] },
    });
    expect((await m.call('/_oracle/visibility?type=task&gid=1')).status).toBe(404);
    expect((await m.call('/_oracle/visibility?type=planet&gid=1')).status).toBe(400);
    expect((await m.call(`/_oracle/visibility?type=task&gid=${b.t.noProject}`, { token: '' })).status).toBe(401);
  });

  it('GET /_oracle/visibility/all pages through every (object, visible users) pair', async () => {
    const seen: Array<{ gid: string; visible_to: string[] }> = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const res: { body: { data: Array<{ gid: string; visible_to: string[] }>; next_offset: number | null; total: number } } = await m.call(
        `/_oracle/visibility/all?type=task&limit=4&offset=${offset}`,
      );
      seen.push(...res.body.data);
      offset = res.body.next_offset;
    }
    expect(seen.length).toBe(m.mock.model.indexes.tasks.size);
    expect(seen.find((v) => v.gid === b.t.inPrivate)?.visible_to).toEqual(sorted([b.u.ann, b.u.ulla, b.u.lam]));
    const attachments = await m.call('/_oracle/visibility/all?type=attachment');
    expect(attachments.body.total).toBe(3);
  });

  it('removing a project member, moving a task, deactivating a user and deleting a task change the answer', async () => {
    const ask = async (gid: string) => (await m.call(`/_oracle/visibility?type=task&gid=${gid}`)).body.data?.visible_to;
    await m.call(`/_admin/projects/${b.projects.priv}/members/${b.u.ann}`, { method: 'DELETE' });
    expect(await ask(b.t.inPrivate)).toEqual(sorted([b.u.ulla, b.u.lam]));
    await m.call(`/_admin/tasks/${b.t.inPrivate}/move`, { method: 'POST', body: { from: b.projects.priv, to: b.projects.teamOnly } });
    expect(await ask(b.t.inPrivate)).toEqual(sorted([b.u.ben, b.u.tess, b.u.gus, b.u.lam]));
    await m.call(`/_admin/users/${b.u.tess}/deactivate`, { method: 'POST', body: {} });
    expect(await ask(b.t.inPrivate)).toEqual(sorted([b.u.ben, b.u.gus, b.u.lam]));
    await m.call(`/_admin/tasks/${b.t.inPrivate}`, { method: 'DELETE' });
    expect((await m.call(`/_oracle/visibility?type=task&gid=${b.t.inPrivate}`)).status).toBe(404);
  });

  it('a user token sees through the API exactly what the oracle says', async () => {
    for (const user of Object.values(b.u)) {
      const token = m.mock.tokenFor(user);
      for (const gid of m.mock.oracle.gids('task')) {
        const res = await m.api(`/tasks/${gid}?opt_fields=name`, { token });
        expect([user, gid, res.status]).toEqual([user, gid, m.mock.oracle.canSee(user, 'task', gid) ? 200 : 403]);
      }
    }
  });
});
