import type { GroupRecord, SyncEvent, UserRecord } from '../adapter';
import { SourceError, SourceNotFoundError, SourcePermissionError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import {
  population,
  portfolioGroup,
  projectGroup,
  teamGroup,
  teamsReferenced,
  toUser,
  workspaceMembersGroup,
  type Population,
} from './work-management-mapping';
import type {
  Ref,
  WmMembership,
  WmPortfolioSetting,
  WmProject,
  WmTeam,
  WmTeamMembership,
  WmUser,
  WmWorkspace,
  WmWorkspaceMembership,
} from './work-management-records';

/** `opt_fields` of every directory record: exactly the sub-fields the mapping reads, nothing fetched twice. */
export const DIRECTORY_FIELDS = {
  workspace: 'name,is_organization',
  user: 'name,email',
  workspaceMembership: 'user,is_active,is_guest,user_task_list',
  team: 'name,visibility,permalink_url',
  teamMembership: 'user,team,is_guest,is_limited_access',
  project: 'name,privacy_setting,team,archived,permalink_url,created_at',
  membership: 'member.name,member.resource_type,access_level',
  portfolioSetting: 'portfolio.name,is_access_control_inherited',
} as const;

/** Who is who in a workspace, and every group the access lists refer to. */
export interface Directory {
  workspace: WmWorkspace;
  users: WmUser[];
  memberships: WmWorkspaceMembership[];
  people: Population;
  /** Listed teams, plus teams a project refers to that the listing did not show. */
  teams: WmTeam[];
  teamMemberships: Map<string, WmTeamMembership[]>;
  projects: WmProject[];
  projectMemberships: Map<string, WmMembership[]>;
  /** Project gid → gids of the portfolios whose access control it inherits. */
  inherits: Map<string, string[]>;
  portfolios: Map<string, { gid: string; name?: string; memberships: WmMembership[] }>;
}

/** The configured workspace, or the first organization the token can see (else its first workspace). */
export async function resolveWorkspace(api: WorkManagementApi, configured: string | undefined): Promise<WmWorkspace> {
  if (configured !== undefined) {
    const { data } = await api.get<{ data: WmWorkspace }>(`/workspaces/${configured}`, { opt_fields: DIRECTORY_FIELDS.workspace });
    return data;
  }
  const all = await api.all<WmWorkspace>('/workspaces', {}, DIRECTORY_FIELDS.workspace);
  const chosen = all.find((w) => w.is_organization === true) ?? all[0];
  if (!chosen) throw new SourceError('The token sees no workspace: set WORK_MANAGEMENT_WORKSPACE or use a token of a workspace member');
  return chosen;
}

/**
 * Reads the permission graph of a workspace: users and their workspace memberships (active,
 * guest), teams and their memberships, projects with their memberships (users and whole teams)
 * and the portfolios they inherit access from. Listings start together; per-team and per-project
 * listings go out ten to a batch.
 */
export async function crawlDirectory(api: WorkManagementApi, workspace: WmWorkspace): Promise<Directory> {
  const ws = workspace.gid;
  const [users, memberships, listedTeams, projects] = await Promise.all([
    api.all<WmUser>('/users', { workspace: ws }, DIRECTORY_FIELDS.user),
    api.all<WmWorkspaceMembership>(`/workspaces/${ws}/workspace_memberships`, {}, DIRECTORY_FIELDS.workspaceMembership),
    workspace.is_organization === false ? Promise.resolve([] as WmTeam[]) : api.all<WmTeam>(`/workspaces/${ws}/teams`, {}, DIRECTORY_FIELDS.team),
    api.all<WmProject>(`/workspaces/${ws}/projects`, {}, DIRECTORY_FIELDS.project),
  ]);
  const people = population(memberships, users);

  const [projectMemberships, portfolioSettings] = await Promise.all([
    mapAll(projects, (p) => api.all<WmMembership>('/memberships', { parent: p.gid }, DIRECTORY_FIELDS.membership)),
    mapAll(projects, (p) => optional(api.all<WmPortfolioSetting>(`/projects/${p.gid}/project_portfolio_settings`, {}, DIRECTORY_FIELDS.portfolioSetting), [])),
  ]);

  const inherits = new Map<string, string[]>();
  const portfolioNames = new Map<string, string | undefined>();
  for (const [project, settings] of portfolioSettings) {
    const gids = settings.filter((s) => s.is_access_control_inherited === true && s.portfolio).map((s) => s.portfolio.gid);
    if (gids.length === 0) continue;
    inherits.set(project, [...new Set(gids)]);
    for (const s of settings) if (s.portfolio) portfolioNames.set(s.portfolio.gid, s.portfolio.name);
  }
  const portfolioMemberships = await mapAll(
    [...new Set([...inherits.values()].flat())].map((gid) => ({ gid })),
    // A portfolio the token cannot read grants nothing through it (fail closed).
    (p) => optional(api.all<WmMembership>('/memberships', { parent: p.gid }, DIRECTORY_FIELDS.membership), []),
  );
  const portfolios = new Map([...portfolioMemberships].map(([gid, list]) => [gid, { gid, name: portfolioNames.get(gid), memberships: list }]));

  // Every team a group refers to gets a group of its own, listed or not (secret teams a token
  // cannot list, teams of another page of a changing listing): no access list may dangle.
  const teams = [...listedTeams];
  const known = new Set(teams.map((t) => t.gid));
  const referenced = new Map<string, Ref>();
  for (const p of projects) for (const gid of teamsReferenced(p, projectMemberships.get(p.gid) ?? [])) referenced.set(gid, { gid });
  for (const p of portfolios.values()) for (const m of p.memberships) if (m.member.resource_type === 'team') referenced.set(m.member.gid, m.member);
  const missing = [...referenced.keys()].filter((gid) => !known.has(gid));
  const fetched = await mapAll(
    missing.map((gid) => ({ gid })),
    (t) =>
      optional(
        api.get<{ data: WmTeam }>(`/teams/${t.gid}`, { opt_fields: DIRECTORY_FIELDS.team }).then((r) => r.data),
        { gid: t.gid, name: referenced.get(t.gid)?.name ?? `Team ${t.gid}` },
      ),
  );
  teams.push(...fetched.values());
  const teamMemberships = await mapAll(teams, (t) =>
    optional(api.all<WmTeamMembership>(`/teams/${t.gid}/team_memberships`, {}, DIRECTORY_FIELDS.teamMembership), []),
  );

  return { workspace, users, memberships, people, teams, teamMemberships, projects, projectMemberships, inherits, portfolios };
}

/** Users as the platform sees them: every workspace member with an email, Inactive unless active. */
export function directoryUsers(dir: Directory): UserRecord[] {
  return dir.users.map((u) => toUser(u, dir.people)).filter((u): u is UserRecord => u !== undefined);
}

/** The groups: the workspace's members, each team, each inherited portfolio, each project. */
export function directoryGroups(dir: Directory): GroupRecord[] {
  const ws = dir.workspace;
  return [
    workspaceMembersGroup(ws.gid, ws.name, dir.people),
    ...dir.teams.map((t) => teamGroup(t, dir.teamMemberships.get(t.gid) ?? [], dir.people)),
    ...[...dir.portfolios.values()].map((p) => portfolioGroup(p, p.memberships, dir.people)),
    ...dir.projects.map((p) => projectGroup(p, ws.gid, dir.projectMemberships.get(p.gid) ?? [], dir.people, dir.inherits.get(p.gid) ?? [])),
  ];
}

export function directoryEvents(dir: Directory): SyncEvent[] {
  return [
    ...directoryUsers(dir).map((user): SyncEvent => ({ type: 'user', user })),
    ...directoryGroups(dir).map((group): SyncEvent => ({ type: 'group', group })),
  ];
}

/** Native ids of every group the directory yields (to delete those that disappear). */
export function directoryGroupIds(dir: Directory): string[] {
  return directoryGroups(dir).map((g) => g.nativeId);
}

/** Runs `load` for every item at once (the API batches and throttles them), keyed by gid. */
async function mapAll<T extends { gid: string }, R>(items: readonly T[], load: (item: T) => Promise<R>): Promise<Map<string, R>> {
  const results = await Promise.all(items.map(async (item) => [item.gid, await load(item)] as const));
  return new Map(results);
}

/**
 * The value of `promise`, or `fallback` when the object is not there or not readable by this
 * token (404/403) or the feature is not on the service's plan (402): the access it could have
 * given is left out, never widened.
 */
export async function optional<T>(promise: Promise<T>, fallback: T): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof SourceNotFoundError || error instanceof SourcePermissionError || (error instanceof SourceError && error.details.status === 402))
      return fallback;
    throw error;
  }
}
