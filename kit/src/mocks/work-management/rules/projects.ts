/**
 * Project and portfolio rules of the seed ("Project, section, task rules"):
 * - project followers are a subset of members: adding a follower adds the user as a member if
 *   not already one; removing a follower leaves membership unchanged; removing a member also
 *   stops them following;
 * - a project in an organization is shared with one team, fixed at creation (the team cannot be
 *   changed through the API); a project in a plain workspace has no team and must not get one;
 * - a portfolio holds at most 1500 items (custom-field limits: rules/custom-fields.ts).
 */
import { badRequest, cannotWrite, missingInput, notFound } from '../api/api-error';
import type { AccessLevel, Gid, Portfolio, PrivacySetting, Project, WorkManagementStore } from '../model';
import { applyProjectCustomFields, planProjectCustomFields } from './portfolio-custom-fields';

export const MAX_PORTFOLIO_ITEMS = 1500;
export const PRIVACY_SETTINGS: readonly PrivacySetting[] = ['public_to_workspace', 'private_to_team', 'private'];
export const ACCESS_LEVELS: readonly AccessLevel[] = ['admin', 'editor', 'commenter', 'viewer'];

function workspaceUser(store: WorkManagementStore, workspace: Gid, gid: Gid, field: string): Gid {
  if (!store.indexes.users.has(gid)) throw notFound(field, gid);
  if (!store.people.workspaceMembership(gid, workspace)) throw badRequest(`${field}: User ${gid} is not a member of this workspace`);
  return gid;
}

export function addProjectMembers(store: WorkManagementStore, project: Project, members: Gid[], accessLevel?: AccessLevel): void {
  for (const gid of members) {
    const kind = store.indexes.kindOf(gid);
    if (kind === 'team') {
      const team = store.indexes.teams.get(gid);
      if (!team || team.workspace !== project.workspace) throw notFound('team', gid);
    } else workspaceUser(store, project.workspace, gid, 'members');
  }
  for (const gid of members) store.projects.addMembership({ parent: project.gid, member: gid, accessLevel: accessLevel ?? project.defaultAccessLevel });
}

export function removeProjectMembers(store: WorkManagementStore, project: Project, members: Gid[]): void {
  for (const gid of members) {
    const m = store.projects.findMembership(project.gid, gid);
    if (m) store.projects.removeMembership(m);
  }
}

/** Adding a follower makes them a member first if they are not one. */
export function addProjectFollowers(store: WorkManagementStore, project: Project, users: Gid[]): void {
  for (const u of users) workspaceUser(store, project.workspace, u, 'followers');
  for (const u of users) {
    if (!store.projects.findMembership(project.gid, u))
      store.projects.addMembership({ parent: project.gid, member: u, accessLevel: project.defaultAccessLevel });
    if (!project.followers.includes(u))
      store.projects.change(project, 'followers', () => project.followers.push(u), { action: 'added', user: store.recorder.ref('user', u) });
  }
}

/** Removing a follower leaves their membership alone. */
export function removeProjectFollowers(store: WorkManagementStore, project: Project, users: Gid[]): void {
  for (const u of users) {
    if (project.followers.includes(u))
      store.projects.change(project, 'followers', () => project.followers.splice(project.followers.indexOf(u), 1), {
        action: 'removed',
        user: store.recorder.ref('user', u),
      });
  }
}

export function createProject(store: WorkManagementStore, data: Record<string, unknown>, owner: Gid | null): Project {
  const workspaceGid = typeof data.workspace === 'string' ? data.workspace : undefined;
  const teamGid = typeof data.team === 'string' && data.team !== '' ? data.team : undefined;
  const team = teamGid ? store.indexes.teams.get(teamGid) : undefined;
  if (teamGid && !team) throw notFound('team', teamGid);
  const workspace = store.indexes.workspaces.get(workspaceGid ?? team?.workspace ?? '');
  if (!workspace) throw workspaceGid ? notFound('workspace', workspaceGid) : missingInput('workspace');
  if (team && team.workspace !== workspace.gid) throw badRequest('team: The team is not in this workspace');
  if (workspace.isOrganization && !team) throw missingInput('team');
  if (!workspace.isOrganization && team) throw badRequest('team: A project in a workspace that is not an organization cannot have a team');
  const name = typeof data.name === 'string' ? data.name : '';
  if (!name.trim()) throw missingInput('name');
  const privacy = (data.privacy_setting ?? (data.public === false ? 'private' : 'public_to_workspace')) as PrivacySetting;
  if (!PRIVACY_SETTINGS.includes(privacy)) throw badRequest(`privacy_setting: must be one of ${PRIVACY_SETTINGS.join(', ')}`);
  if (privacy === 'private_to_team' && !team) throw badRequest('privacy_setting: private_to_team needs a team');
  const access = (data.default_access_level ?? 'editor') as AccessLevel;
  if (!ACCESS_LEVELS.includes(access)) throw badRequest(`default_access_level: must be one of ${ACCESS_LEVELS.join(', ')}`);
  const project = store.projects.add({
    workspace: workspace.gid,
    team: team?.gid ?? null,
    name,
    notes: typeof data.notes === 'string' ? data.notes : null,
    privacySetting: privacy,
    defaultAccessLevel: access,
    archived: data.archived === true,
    owner: owner && store.people.workspaceMembership(owner, workspace.gid) ? owner : null,
    color: typeof data.color === 'string' ? data.color : undefined,
  });
  if (Array.isArray(data.followers)) addProjectFollowers(store, project, data.followers.map(String));
  return project;
}

/** PUT /projects/{gid}: the team is never writable; the rest updates in place (custom fields: rules/portfolio-custom-fields.ts). */
export function updateProject(store: WorkManagementStore, project: Project, data: Record<string, unknown>): void {
  if ('team' in data && data.team !== (project.team ?? null)) throw cannotWrite('team');
  if ('workspace' in data && data.workspace !== project.workspace) throw cannotWrite('workspace');
  for (const field of ['members', 'followers'] as const) if (field in data) throw cannotWrite(field);
  if (data.privacy_setting !== undefined) {
    const privacy = data.privacy_setting as PrivacySetting;
    if (!PRIVACY_SETTINGS.includes(privacy)) throw badRequest(`privacy_setting: must be one of ${PRIVACY_SETTINGS.join(', ')}`);
    if (privacy === 'private_to_team' && !project.team) throw badRequest('privacy_setting: private_to_team needs a team');
  }
  if (data.owner !== undefined && data.owner !== null) workspaceUser(store, project.workspace, String(data.owner), 'owner');
  const fieldChanges = planProjectCustomFields(store, project, data.custom_fields);
  if (typeof data.name === 'string' && data.name !== project.name)
    store.projects.change(project, 'name', () => (project.name = data.name as string), data.name);
  if (typeof data.notes === 'string') store.projects.change(project, 'notes', () => (project.notes = data.notes as string), data.notes);
  if (typeof data.archived === 'boolean' && data.archived !== project.archived)
    store.projects.change(project, 'archived', () => (project.archived = data.archived as boolean), data.archived);
  if (typeof data.completed === 'boolean') store.projects.change(project, 'completed', () => (project.completed = data.completed as boolean), data.completed);
  if (typeof data.color === 'string') store.projects.change(project, 'color', () => (project.color = data.color as string), data.color);
  if (data.privacy_setting !== undefined && data.privacy_setting !== project.privacySetting) {
    store.projects.change(project, 'privacy_setting', () => (project.privacySetting = data.privacy_setting as PrivacySetting), data.privacy_setting);
  } else if (typeof data.public === 'boolean' && data.public !== (project.privacySetting === 'public_to_workspace')) {
    const next: PrivacySetting = data.public ? 'public_to_workspace' : project.team ? 'private_to_team' : 'private';
    store.projects.change(project, 'privacy_setting', () => (project.privacySetting = next), next);
  }
  if (data.owner !== undefined) {
    const owner = data.owner === null ? null : String(data.owner);
    store.projects.change(project, 'owner', () => (project.owner = owner), owner);
  }
  for (const field of ['due_on', 'start_on'] as const) {
    if (data[field] === undefined) continue;
    const v = data[field];
    if (v !== null && (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v))) throw badRequest(`${field}: Not a date: ${String(v)}`);
    store.projects.change(project, field, () => (field === 'due_on' ? (project.dueOn = v as string | null) : (project.startOn = v as string | null)), v);
  }
  applyProjectCustomFields(store, project, fieldChanges);
}

export function addPortfolioItem(store: WorkManagementStore, portfolio: Portfolio, item: unknown): void {
  if (typeof item !== 'string' || item === '') throw missingInput('item');
  const kind = store.indexes.kindOf(item);
  const target = kind === 'project' ? store.indexes.projects.get(item) : kind === 'portfolio' ? store.indexes.portfolios.get(item) : undefined;
  if (!target) throw notFound('item', item);
  if (target.workspace !== portfolio.workspace) throw badRequest("item: The item is not in the portfolio's workspace");
  if (item === portfolio.gid) throw badRequest('item: A portfolio cannot contain itself');
  if (portfolio.items.includes(item)) return;
  if (portfolio.items.length >= MAX_PORTFOLIO_ITEMS) throw badRequest(`item: A portfolio holds at most ${MAX_PORTFOLIO_ITEMS} items`);
  portfolio.items.push(item);
}

export function removePortfolioItem(portfolio: Portfolio, item: unknown): void {
  if (typeof item !== 'string' || item === '') throw missingInput('item');
  const i = portfolio.items.indexOf(item);
  if (i >= 0) portfolio.items.splice(i, 1);
}
