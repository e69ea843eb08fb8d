/**
 * Workspaces, users, workspace memberships, user task lists, teams and team memberships: the
 * directory the adapter crawls for principals (reference §5.1–5.5).
 */
import { badRequest, missingInput } from '../api/api-error';
import { ok, queryTime, type Route } from '../api/route-table';
import { node, nodeMaker, renderMany } from '../api/representations';
import type { Team, User, WorkspaceMembership } from '../model';
import { compareGids } from '../visibility-oracle';
import { assertInWorkspace, callerInWorkspace, isServiceAccount, listResponse, lookup, oneResponse, requireWorkspace, resolveUser, visibleOnly } from './route-helpers';

/** `/workspaces/{gid}/users` and `/teams/{gid}/users`: alphabetical, at most 2,000, no next_page. */
const USERS_CAP = 2000;

export const directoryRoutes: Route[] = [
  {
    method: 'GET',
    path: '/workspaces',
    handler: (req, ctx) => {
      const all = [...ctx.store.workspaces.values()].filter((w) => callerInWorkspace(req, ctx, w.gid));
      return listResponse(req, ctx, all, nodeMaker('workspace'));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      return oneResponse(req, ctx, node('workspace', ws));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/users',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      const users = ctx.store.list(ctx.store.workspaceMembershipsByWorkspace.get(ws.gid), ctx.store.workspaceMemberships).map((m) => ctx.store.users.get(m.user) as User);
      users.sort((a, b) => a.name.localeCompare(b.name) || compareGids(a.gid, b.gid));
      return ok(renderMany(req, ctx, users.slice(0, USERS_CAP).map(nodeMaker('user'))));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/workspace_memberships',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      let list = ctx.store.list(ctx.store.workspaceMembershipsByWorkspace.get(ws.gid), ctx.store.workspaceMemberships);
      if (req.query.user !== undefined) {
        const user = resolveUser(req, ctx, req.query.user);
        list = list.filter((m) => m.user === user.gid);
      }
      return listResponse(req, ctx, list, nodeMaker('workspaceMembership'));
    },
  },
  {
    method: 'GET',
    path: '/workspace_memberships/:workspace_membership_gid',
    handler: (req, ctx) => {
      const m = lookup(ctx.store.workspaceMemberships, 'workspace_membership', req.params.workspace_membership_gid);
      assertInWorkspace(req, ctx, m.workspace);
      return oneResponse(req, ctx, node('workspaceMembership', m));
    },
  },
  {
    method: 'GET',
    path: '/users',
    handler: (req, ctx) => {
      const s = ctx.store;
      let memberships: WorkspaceMembership[];
      if (req.query.team !== undefined) {
        const team = lookup(s.teams, 'team', req.query.team);
        assertInWorkspace(req, ctx, team.workspace);
        const users = s.list(s.teamMembershipsByTeam.get(team.gid), s.teamMemberships).map((m) => s.users.get(m.user) as User);
        return listResponse(req, ctx, users.sort((a, b) => compareGids(a.gid, b.gid)), nodeMaker('user'));
      }
      if (req.query.workspace !== undefined) {
        const ws = requireWorkspace(ctx, req.query.workspace);
        assertInWorkspace(req, ctx, ws.gid);
        memberships = s.list(s.workspaceMembershipsByWorkspace.get(ws.gid), s.workspaceMemberships);
      } else {
        memberships = [...s.workspaceMemberships.values()].filter((m) => callerInWorkspace(req, ctx, m.workspace));
      }
      const seen = new Set<string>();
      const users: User[] = [];
      for (const m of memberships) {
        if (seen.has(m.user)) continue;
        seen.add(m.user);
        users.push(s.users.get(m.user) as User);
      }
      // Sorted by user id, as the real endpoint is.
      return listResponse(req, ctx, users.sort((a, b) => compareGids(a.gid, b.gid)), nodeMaker('user'));
    },
  },
  {
    method: 'GET',
    path: '/users/:user_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('user', resolveUser(req, ctx, req.params.user_gid))),
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/users/:user_gid',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      const user = resolveUser(req, ctx, req.params.user_gid);
      if (!user.isServiceAccount && !ctx.store.workspaceMembership(user.gid, ws.gid)) throw badRequest(`user: ${user.gid} is not in workspace ${ws.gid}`);
      return oneResponse(req, ctx, node('user', user));
    },
  },
  {
    method: 'GET',
    path: '/users/:user_gid/workspace_memberships',
    handler: (req, ctx) => {
      const user = resolveUser(req, ctx, req.params.user_gid);
      const list = ctx.store.list(ctx.store.workspaceMembershipsByUser.get(user.gid), ctx.store.workspaceMemberships).filter((m) => callerInWorkspace(req, ctx, m.workspace));
      return listResponse(req, ctx, list, nodeMaker('workspaceMembership'));
    },
  },
  {
    method: 'GET',
    path: '/users/:user_gid/user_task_list',
    handler: (req, ctx) => {
      const user = resolveUser(req, ctx, req.params.user_gid);
      if (req.query.workspace === undefined) throw missingInput('workspace');
      const ws = requireWorkspace(ctx, req.query.workspace);
      const list = ctx.store.userTaskListOf(user.gid, ws.gid);
      if (!list) throw badRequest(`user: ${user.gid} has no task list in workspace ${ws.gid}`);
      return oneResponse(req, ctx, node('userTaskList', list));
    },
  },
  {
    method: 'GET',
    path: '/user_task_lists/:user_task_list_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('userTaskList', lookup(ctx.store.userTaskLists, 'user_task_list', req.params.user_task_list_gid))),
  },
  {
    method: 'GET',
    path: '/user_task_lists/:user_task_list_gid/tasks',
    handler: (req, ctx) => {
      const s = ctx.store;
      const list = lookup(s.userTaskLists, 'user_task_list', req.params.user_task_list_gid);
      const completedSince = queryTime(req, 'completed_since');
      let tasks = s.list(s.tasksByAssignee.get(`${list.owner}/${list.workspace}`), s.tasks);
      if (completedSince !== undefined) tasks = tasks.filter((t) => !t.completed || (t.completedAt ?? 0) >= completedSince);
      // The real endpoint hides private tasks the caller cannot see.
      return listResponse(req, ctx, visibleOnly(req, ctx, 'task', tasks), nodeMaker('task'));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/teams',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      if (!ws.isOrganization) throw badRequest('workspace: Teams exist only in organizations');
      let teams = ctx.store.list(ctx.store.teamsByWorkspace.get(ws.gid), ctx.store.teams);
      if (!isServiceAccount(req)) teams = teams.filter((t) => t.visibility !== 'secret' || isTeamMember(ctx.store.teamMemberships, ctx.store.teamMembershipsByTeam.get(t.gid), req.caller.user.gid));
      return listResponse(req, ctx, teams, nodeMaker('team'));
    },
  },
  {
    method: 'GET',
    path: '/users/:user_gid/teams',
    handler: (req, ctx) => {
      const user = resolveUser(req, ctx, req.params.user_gid);
      if (req.query.organization === undefined) throw missingInput('organization');
      const ws = requireWorkspace(ctx, req.query.organization, 'organization');
      const teams = ctx.store
        .list(ctx.store.teamMembershipsByUser.get(user.gid), ctx.store.teamMemberships)
        .map((m) => ctx.store.teams.get(m.team) as Team)
        .filter((t) => t.workspace === ws.gid);
      return listResponse(req, ctx, teams, nodeMaker('team'));
    },
  },
  {
    method: 'GET',
    path: '/teams/:team_gid',
    handler: (req, ctx) => {
      const team = lookup(ctx.store.teams, 'team', req.params.team_gid);
      assertInWorkspace(req, ctx, team.workspace);
      return oneResponse(req, ctx, node('team', team));
    },
  },
  {
    method: 'GET',
    path: '/teams/:team_gid/users',
    handler: (req, ctx) => {
      const s = ctx.store;
      const team = lookup(s.teams, 'team', req.params.team_gid);
      assertInWorkspace(req, ctx, team.workspace);
      // Includes guests and limited-access members; alphabetical; capped; no next_page.
      const users = s.list(s.teamMembershipsByTeam.get(team.gid), s.teamMemberships).map((m) => s.users.get(m.user) as User);
      users.sort((a, b) => a.name.localeCompare(b.name) || compareGids(a.gid, b.gid));
      return ok(renderMany(req, ctx, users.slice(0, USERS_CAP).map(nodeMaker('user'))));
    },
  },
  {
    method: 'GET',
    path: '/teams/:team_gid/team_memberships',
    handler: (req, ctx) => {
      const team = lookup(ctx.store.teams, 'team', req.params.team_gid);
      assertInWorkspace(req, ctx, team.workspace);
      return listResponse(req, ctx, ctx.store.list(ctx.store.teamMembershipsByTeam.get(team.gid), ctx.store.teamMemberships), nodeMaker('teamMembership'));
    },
  },
  {
    method: 'GET',
    path: '/team_memberships',
    handler: (req, ctx) => {
      const s = ctx.store;
      if (req.query.team !== undefined) {
        const team = lookup(s.teams, 'team', req.query.team);
        assertInWorkspace(req, ctx, team.workspace);
        let list = s.list(s.teamMembershipsByTeam.get(team.gid), s.teamMemberships);
        if (req.query.user !== undefined) {
          const user = resolveUser(req, ctx, req.query.user);
          list = list.filter((m) => m.user === user.gid);
        }
        return listResponse(req, ctx, list, nodeMaker('teamMembership'));
      }
      if (req.query.user !== undefined) {
        if (req.query.workspace === undefined) throw missingInput('workspace');
        const user = resolveUser(req, ctx, req.query.user);
        const ws = requireWorkspace(ctx, req.query.workspace);
        const list = s.list(s.teamMembershipsByUser.get(user.gid), s.teamMemberships).filter((m) => s.teams.get(m.team)?.workspace === ws.gid);
        return listResponse(req, ctx, list, nodeMaker('teamMembership'));
      }
      throw badRequest('Must specify either team, or user and workspace');
    },
  },
  {
    method: 'GET',
    path: '/team_memberships/:team_membership_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('teamMembership', lookup(ctx.store.teamMemberships, 'team_membership', req.params.team_membership_gid))),
  },
  {
    method: 'GET',
    path: '/users/:user_gid/team_memberships',
    handler: (req, ctx) => {
      const s = ctx.store;
      const user = resolveUser(req, ctx, req.params.user_gid);
      if (req.query.workspace === undefined) throw missingInput('workspace');
      const ws = requireWorkspace(ctx, req.query.workspace);
      const list = s.list(s.teamMembershipsByUser.get(user.gid), s.teamMemberships).filter((m) => s.teams.get(m.team)?.workspace === ws.gid);
      return listResponse(req, ctx, list, nodeMaker('teamMembership'));
    },
  },
];

function isTeamMember(all: Map<string, { user: string }>, ids: string[] | undefined, user: string): boolean {
  return (ids ?? []).some((id) => all.get(id)?.user === user);
}
