/**
 * Workspaces, users, workspace memberships, user task lists, teams and team memberships: the
 * directory the adapter crawls for principals (reference §5.1–5.5).
 */
import { badRequest, missingInput } from '../api/api-error';
import { nodeMaker, renderMany } from '../api/representations';
import { ok, queryTime, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { Gid, Task, Team, TeamMembership, User, UserTaskList, Workspace, WorkspaceMembership, WorkManagementStore } from '../model';
import { compareGids } from '../visibility-oracle';
import { assertInWorkspace, callerInWorkspace, isServiceAccount, lookup, memberWorkspace, requireWorkspace, resolveUser, visibleOnly } from './route-helpers';
import { byGid, getOne, inWorkspace, listOf, memberWorkspaceParam, under } from './route-factories';

/** `/workspaces/{gid}/users` and `/teams/{gid}/users`: alphabetical, at most 2,000, no next_page. */
const USERS_CAP = 2000;

const teamParam = inWorkspace(byGid('team', (s) => s.indexes.teams));
const userParam = (req: ApiRequest, ctx: MockContext): User => resolveUser(req, ctx, req.params.user_gid);
const userTaskListParam = byGid('user_task_list', (s) => s.indexes.userTaskLists);

const membershipsOfWorkspace = (s: WorkManagementStore, ws: Gid): WorkspaceMembership[] =>
  s.indexes.list(s.indexes.workspaceMembershipsByWorkspace.get(ws), s.indexes.workspaceMemberships);
const teamMembershipsOfTeam = (s: WorkManagementStore, team: Gid): TeamMembership[] =>
  s.indexes.list(s.indexes.teamMembershipsByTeam.get(team), s.indexes.teamMemberships);
const usersOf = (s: WorkManagementStore, memberships: ReadonlyArray<{ user: Gid }>): User[] => memberships.map((m) => s.indexes.users.get(m.user) as User);
const byUserGid = (users: User[]): User[] => users.sort((a, b) => compareGids(a.gid, b.gid));

/** Only the memberships of `?user=` when given. */
function ofQueryUser<T extends { user: Gid }>(req: ApiRequest, ctx: MockContext, list: T[]): T[] {
  if (req.query.user === undefined) return list;
  const user = resolveUser(req, ctx, req.query.user);
  return list.filter((m) => m.user === user.gid);
}

/** `?workspace=` is required: a user's team memberships there. */
function teamMembershipsOfUser(req: ApiRequest, ctx: MockContext, user: User): TeamMembership[] {
  const s = ctx.store;
  if (req.query.workspace === undefined) throw missingInput('workspace');
  const ws = requireWorkspace(ctx, req.query.workspace);
  return s.indexes
    .list(s.indexes.teamMembershipsByUser.get(user.gid), s.indexes.teamMemberships)
    .filter((m) => s.indexes.teams.get(m.team)?.workspace === ws.gid);
}

/** Member lists that the real service caps and sorts by name, without pagination. */
function alphabeticalUsers<P>(path: string, parent: (req: ApiRequest, ctx: MockContext) => P, members: (s: WorkManagementStore, parent: P) => User[]): Route {
  return {
    method: 'GET',
    path,
    handler: (req, ctx) => {
      const users = members(ctx.store, parent(req, ctx));
      users.sort((a, b) => a.name.localeCompare(b.name) || compareGids(a.gid, b.gid));
      return ok(renderMany(req, ctx, users.slice(0, USERS_CAP).map(nodeMaker('user'))));
    },
  };
}

function usersOfQuery(req: ApiRequest, ctx: MockContext): User[] {
  const s = ctx.store;
  if (req.query.team !== undefined) {
    const team = lookup(s.indexes.teams, 'team', req.query.team);
    assertInWorkspace(req, ctx, team.workspace);
    return byUserGid(usersOf(s, teamMembershipsOfTeam(s, team.gid)));
  }
  const memberships =
    req.query.workspace !== undefined
      ? membershipsOfWorkspace(s, memberWorkspace(req, ctx, req.query.workspace).gid)
      : [...s.indexes.workspaceMemberships.values()].filter((m) => callerInWorkspace(req, ctx, m.workspace));
  const seen = new Set<string>();
  const users: User[] = [];
  for (const m of memberships) {
    if (seen.has(m.user)) continue;
    seen.add(m.user);
    users.push(s.indexes.users.get(m.user) as User);
  }
  // Sorted by user id, as the real endpoint is.
  return byUserGid(users);
}

function userInWorkspace(req: ApiRequest, ctx: MockContext): User {
  const ws = requireWorkspace(ctx, req.params.workspace_gid);
  const user = userParam(req, ctx);
  if (!user.isServiceAccount && !ctx.store.people.workspaceMembership(user.gid, ws.gid)) throw badRequest(`user: ${user.gid} is not in workspace ${ws.gid}`);
  return user;
}

/** `?workspace=` is required: the user's own task list there. */
function userTaskListOfUser(req: ApiRequest, ctx: MockContext): UserTaskList {
  const user = userParam(req, ctx);
  if (req.query.workspace === undefined) throw missingInput('workspace');
  const ws = requireWorkspace(ctx, req.query.workspace);
  const list = ctx.store.people.userTaskListOf(user.gid, ws.gid);
  if (!list) throw badRequest(`user: ${user.gid} has no task list in workspace ${ws.gid}`);
  return list;
}

/** The real endpoint hides private tasks the caller cannot see. */
function tasksOfUserTaskList(req: ApiRequest, ctx: MockContext): readonly Task[] {
  const s = ctx.store;
  const list = userTaskListParam(req, ctx);
  const completedSince = queryTime(req, 'completed_since');
  let tasks = s.indexes.list(s.indexes.tasksByAssignee.get(`${list.owner}/${list.workspace}`), s.indexes.tasks);
  if (completedSince !== undefined) tasks = tasks.filter((t) => !t.completed || (t.completedAt ?? 0) >= completedSince);
  return visibleOnly(req, ctx, 'task', tasks);
}

/** Secret teams only for their members (all for the service account). */
function teamsOfWorkspace(req: ApiRequest, ctx: MockContext, ws: Workspace): Team[] {
  if (!ws.isOrganization) throw badRequest('workspace: Teams exist only in organizations');
  const s = ctx.store;
  const teams = s.indexes.list(s.indexes.teamsByWorkspace.get(ws.gid), s.indexes.teams);
  if (isServiceAccount(req)) return teams;
  const me = req.caller.user.gid;
  return teams.filter((t) => t.visibility !== 'secret' || teamMembershipsOfTeam(s, t.gid).some((m) => m.user === me));
}

/** `?organization=` is required: the teams of a user there. */
function teamsOfUser(req: ApiRequest, ctx: MockContext): Team[] {
  const s = ctx.store;
  const user = userParam(req, ctx);
  if (req.query.organization === undefined) throw missingInput('organization');
  const ws = requireWorkspace(ctx, req.query.organization, 'organization');
  return s.indexes
    .list(s.indexes.teamMembershipsByUser.get(user.gid), s.indexes.teamMemberships)
    .map((m) => s.indexes.teams.get(m.team) as Team)
    .filter((t) => t.workspace === ws.gid);
}

/** `?team=` (and optionally `?user=`), or `?user=` with `?workspace=`. */
function teamMembershipsOfQuery(req: ApiRequest, ctx: MockContext): TeamMembership[] {
  if (req.query.team !== undefined) {
    const team = lookup(ctx.store.indexes.teams, 'team', req.query.team);
    assertInWorkspace(req, ctx, team.workspace);
    return ofQueryUser(req, ctx, teamMembershipsOfTeam(ctx.store, team.gid));
  }
  if (req.query.user !== undefined) {
    if (req.query.workspace === undefined) throw missingInput('workspace');
    return teamMembershipsOfUser(req, ctx, resolveUser(req, ctx, req.query.user));
  }
  throw badRequest('Must specify either team, or user and workspace');
}

export const directoryRoutes: Route[] = [
  listOf('/workspaces', 'workspace', (req, ctx) => [...ctx.store.indexes.workspaces.values()].filter((w) => callerInWorkspace(req, ctx, w.gid))),
  getOne('/workspaces/:workspace_gid', 'workspace', memberWorkspaceParam),
  alphabeticalUsers('/workspaces/:workspace_gid/users', memberWorkspaceParam, (s, ws) => usersOf(s, membershipsOfWorkspace(s, ws.gid))),
  listOf(
    '/workspaces/:workspace_gid/workspace_memberships',
    'workspaceMembership',
    under(memberWorkspaceParam, (s, ws, req, ctx) => ofQueryUser(req, ctx, membershipsOfWorkspace(s, ws.gid))),
  ),
  getOne(
    '/workspace_memberships/:workspace_membership_gid',
    'workspaceMembership',
    inWorkspace(byGid('workspace_membership', (s) => s.indexes.workspaceMemberships)),
  ),
  listOf('/users', 'user', usersOfQuery),
  getOne('/users/:user_gid', 'user', userParam),
  getOne('/workspaces/:workspace_gid/users/:user_gid', 'user', userInWorkspace),
  listOf(
    '/users/:user_gid/workspace_memberships',
    'workspaceMembership',
    under(userParam, (s, user, req, ctx) =>
      s.indexes
        .list(s.indexes.workspaceMembershipsByUser.get(user.gid), s.indexes.workspaceMemberships)
        .filter((m) => callerInWorkspace(req, ctx, m.workspace)),
    ),
  ),
  getOne('/users/:user_gid/user_task_list', 'userTaskList', userTaskListOfUser),
  getOne('/user_task_lists/:user_task_list_gid', 'userTaskList', userTaskListParam),
  listOf('/user_task_lists/:user_task_list_gid/tasks', 'task', tasksOfUserTaskList),
  listOf(
    '/workspaces/:workspace_gid/teams',
    'team',
    under(memberWorkspaceParam, (_s, ws, req, ctx) => teamsOfWorkspace(req, ctx, ws)),
  ),
  listOf('/users/:user_gid/teams', 'team', teamsOfUser),
  getOne('/teams/:team_gid', 'team', teamParam),
  // Includes guests and limited-access members.
  alphabeticalUsers('/teams/:team_gid/users', teamParam, (s, team) => usersOf(s, teamMembershipsOfTeam(s, team.gid))),
  listOf(
    '/teams/:team_gid/team_memberships',
    'teamMembership',
    under(teamParam, (s, team) => teamMembershipsOfTeam(s, team.gid)),
  ),
  listOf('/team_memberships', 'teamMembership', teamMembershipsOfQuery),
  getOne(
    '/team_memberships/:team_membership_gid',
    'teamMembership',
    byGid('team_membership', (s) => s.indexes.teamMemberships),
  ),
  listOf(
    '/users/:user_gid/team_memberships',
    'teamMembership',
    under(userParam, (_s, user, req, ctx) => teamMembershipsOfUser(req, ctx, user)),
  ),
];
