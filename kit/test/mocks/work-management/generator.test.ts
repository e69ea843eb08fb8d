import crypto from 'node:crypto';
import { generateOrganization, resolveShape, SIZE_PRESETS } from '../../../src/mocks/work-management/generator';
import type { WorkManagementStore } from '../../../src/mocks/work-management/model';
import { fieldsOnTaskProjects } from '../../../src/mocks/work-management/rules/custom-fields';

/** A digest of everything the generator decides (records, relations, derived texts). */
function digest(s: WorkManagementStore): string {
  const h = crypto.createHash('sha256');
  const maps = [
    s.indexes.workspaces,
    s.indexes.users,
    s.indexes.workspaceMemberships,
    s.indexes.teams,
    s.indexes.teamMemberships,
    s.indexes.projects,
    s.indexes.memberships,
    s.indexes.sections,
    s.indexes.tasks,
    s.indexes.stories,
    s.indexes.attachments,
    s.indexes.customFields,
    s.indexes.enumOptions,
    s.indexes.customFieldSettings,
    s.indexes.portfolios,
    s.indexes.goals,
    s.indexes.statusUpdates,
    s.indexes.projectStatuses,
  ];
  for (const map of maps) for (const [gid, value] of map) h.update(`${gid}:${JSON.stringify(value)}\n`);
  for (const t of s.indexes.tasks.values()) h.update(s.tasks.notes(t));
  for (const st of s.indexes.stories.values()) h.update(s.tasks.storyText(st));
  return h.digest('hex');
}

describe('generator: same seed → same organization', () => {
  it('is deterministic for a seed and size, and differs across seeds', () => {
    const a = generateOrganization({ seed: 42, size: 'small' });
    const b = generateOrganization({ seed: 42, size: 'small' });
    const c = generateOrganization({ seed: 43, size: 'small' });
    expect(digest(a.store)).toBe(digest(b.store));
    expect(digest(a.store)).not.toBe(digest(c.store));
  });

  it('does not depend on the clock', () => {
    const a = generateOrganization({ seed: 'clock', size: 'tiny', now: () => 0 });
    const b = generateOrganization({ seed: 'clock', size: 'tiny', now: () => Date.UTC(2030, 0, 1) });
    expect(digest(a.store)).toBe(digest(b.store));
  });
});

describe('generator: sizes', () => {
  it.each(Object.entries(SIZE_PRESETS).filter(([name]) => name !== 'xlarge' && name !== 'large'))('%s has %i tasks', (name, tasks) => {
    const g = generateOrganization({ seed: 1, size: name as keyof typeof SIZE_PRESETS });
    expect(g.store.indexes.tasks.size).toBe(tasks);
    expect(g.shape.tasks).toBe(tasks);
  });

  it('takes a task count or a partial shape, deriving the other knobs', () => {
    expect(resolveShape(3000)).toMatchObject({ tasks: 3000, users: 219, teams: 18, projects: 50 });
    expect(resolveShape({ tasks: 200, users: 40, guestRatio: 0.25 })).toMatchObject({ tasks: 200, users: 40, guestRatio: 0.25 });
    expect(resolveShape(1).tasks).toBe(12);
    expect(() => resolveShape('huge' as never)).toThrow(/unknown size/);
  });

  // How long this takes is a benchmark's business, not a test's: here only what it builds.
  it('generates 100,000 tasks without building any document', () => {
    const g = generateOrganization({ seed: 7, size: 100_000 });
    expect(g.store.indexes.tasks.size).toBe(100_000);
    // Documents are built on download only.
    expect([...g.store.indexes.attachments.values()].every((a) => a.size === null)).toBe(true);
    // Every project has its task list index; the biggest is big but bounded.
    const sizes = [...g.store.indexes.tasksByProject.values()].map((l) => l.length);
    expect(Math.max(...sizes)).toBeGreaterThan(100);
  });
});

describe('generator: a realistic organization even at the smallest size', () => {
  const g = generateOrganization({ seed: 'features', size: 'tiny' });
  const s = g.store;
  const orgMemberships = s.indexes.list(s.indexes.workspaceMembershipsByWorkspace.get(g.organization), s.indexes.workspaceMemberships);
  const orgProjects = s.indexes.list(s.indexes.projectsByWorkspace.get(g.organization), s.indexes.projects);
  const tasks = [...s.indexes.tasks.values()];

  it('has an organization and a plain workspace; teams only in the organization', () => {
    expect(s.indexes.workspaces.get(g.organization)?.isOrganization).toBe(true);
    expect(g.personalWorkspace && s.indexes.workspaces.get(g.personalWorkspace)?.isOrganization).toBe(false);
    expect([...s.indexes.teams.values()].every((t) => t.workspace === g.organization)).toBe(true);
    const personalProjects = s.indexes.list(s.indexes.projectsByWorkspace.get(g.personalWorkspace ?? ''), s.indexes.projects);
    expect(personalProjects.length).toBeGreaterThan(0);
    expect(personalProjects.every((p) => p.team === null)).toBe(true);
    expect(orgProjects.every((p) => p.team !== null)).toBe(true);
  });

  it('has active, inactive and guest users, limited-access and guest team members', () => {
    expect(orgMemberships.some((m) => m.isActive && !m.isGuest)).toBe(true);
    expect(orgMemberships.some((m) => !m.isActive)).toBe(true);
    expect(orgMemberships.some((m) => m.isGuest)).toBe(true);
    expect([...s.indexes.teamMemberships.values()].some((m) => m.isLimitedAccess)).toBe(true);
    expect([...s.indexes.teamMemberships.values()].some((m) => m.isGuest)).toBe(true);
    expect(new Set([...s.indexes.teams.values()].map((t) => t.visibility))).toEqual(new Set(['public', 'secret', 'request_to_join']));
  });

  it('has projects of every privacy setting, archived ones, team-shared ones, and followers ⊂ members', () => {
    expect(new Set(orgProjects.map((p) => p.privacySetting))).toEqual(new Set(['public_to_workspace', 'private_to_team', 'private']));
    expect(orgProjects.some((p) => p.archived)).toBe(true);
    expect(orgProjects.some((p) => s.projects.memberships(p.gid).some((m) => m.memberType === 'team'))).toBe(true);
    for (const p of s.indexes.projects.values()) {
      const members = s.projects.userMembers(p.gid);
      for (const f of p.followers) expect(members).toContain(f);
    }
  });

  it('has tasks in one project, in several, in none, and nested subtasks', () => {
    expect(tasks.some((t) => t.memberships.length === 1)).toBe(true);
    expect(tasks.some((t) => t.memberships.length > 1)).toBe(true);
    const orphans = tasks.filter((t) => t.memberships.length === 0 && !t.parent);
    expect(orphans.length).toBeGreaterThan(0);
    expect(orphans.every((t) => t.assignee !== null)).toBe(true); // they live in someone's My Tasks
    expect(tasks.some((t) => t.parent && t.memberships.length === 0)).toBe(true);
    expect(tasks.some((t) => t.parent && t.memberships.length > 0)).toBe(true);
    expect(tasks.some((t) => s.indexes.ancestry(t).length >= 3)).toBe(true);
    expect(tasks.some((t) => t.followers.length > 1)).toBe(true);
    expect(tasks.some((t) => t.completed)).toBe(true);
  });

  it('has custom fields of every type, disabled enum options, and disabled values', () => {
    expect(new Set([...s.indexes.customFields.values()].map((f) => f.type))).toEqual(
      new Set(['text', 'number', 'enum', 'multi_enum', 'date', 'people', 'reference']),
    );
    expect([...s.indexes.enumOptions.values()].some((o) => !o.enabled)).toBe(true);
    const disabledValue = tasks.some((t) => t.customFieldValues.some((v) => !fieldsOnTaskProjects(s, t).includes(v.field)));
    expect(disabledValue).toBe(true);
    const onDisabledOption = tasks.some((t) =>
      t.customFieldValues.some((v) => v.value.type === 'enum' && s.indexes.enumOptions.get(v.value.option)?.enabled === false),
    );
    expect(onDisabledOption).toBe(true);
  });

  it('has comments, system stories, attachments of every kind, links, status updates, portfolios and goals', () => {
    const stories = [...s.indexes.stories.values()];
    expect(stories.some((x) => x.type === 'comment')).toBe(true);
    const attachments = [...s.indexes.attachments.values()];
    expect(new Set(attachments.map((a) => a.kind).filter(Boolean))).toEqual(new Set(['pdf', 'docx', 'pptx', 'txt']));
    expect(attachments.some((a) => a.host !== 'asana' && a.kind === null)).toBe(true);
    expect(attachments.some((a) => a.parentType === 'project')).toBe(true);
    expect(new Set([...s.indexes.statusUpdates.values()].map((u) => u.parentType))).toEqual(new Set(['project', 'portfolio', 'goal']));
    expect(s.indexes.projectStatuses.size).toBeGreaterThan(0);
    expect(s.indexes.portfolios.size).toBeGreaterThan(0);
    expect(s.indexes.goals.size).toBeGreaterThan(0);
    expect(s.indexes.customTypes.size).toBeGreaterThan(0);
  });

  it('keeps gids unique strings across every kind', () => {
    const all = [...s.indexes.kinds.keys()];
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((g) => /^\d{16}$/.test(g))).toBe(true);
  });
});
