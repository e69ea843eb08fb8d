/** Wire representations of workspaces, users, workspace memberships, user task lists, teams and team memberships. */
import type { Team, TeamMembership, User, UserTaskList, Workspace, WorkspaceMembership } from '../model';
import { fixed, isoAt, namedSpec, prop, refAt, resourceSpec, userAt } from './field-specs';
import { hash, htmlBody, node, nodeMaker, refs, type NodeSpec } from './render-node';

export const workspaceSpec: NodeSpec<Workspace> = namedSpec<Workspace>('workspace', ['email_domains', 'is_organization'], {
  email_domains: prop('emailDomains'),
  is_organization: prop('isOrganization'),
});

const PHOTO_SIZES = ['21x21', '27x27', '36x36', '60x60', '128x128', '1024x1024'];

export const userSpec: NodeSpec<User> = namedSpec<User>('user', ['email', 'photo', 'workspaces'], {
  email: prop('email'),
  photo: (u, rc) =>
    hash(u.gid) % 3 === 0
      ? null
      : Object.fromEntries(
          PHOTO_SIZES.map((size) => [`image_${size}`, `${rc.ctx.webBaseUrl}/photos/${u.gid}_${size}.${size === '1024x1024' ? 'jpg' : 'png'}`]),
        ),
  workspaces: (u, rc) => {
    const s = rc.ctx.store;
    const ws = u.isServiceAccount
      ? [...s.indexes.workspaces.keys()]
      : s.indexes.list(s.indexes.workspaceMembershipsByUser.get(u.gid), s.indexes.workspaceMemberships).map((m) => m.workspace);
    return refs(ws, (g) => s.indexes.workspaces.get(g), nodeMaker('workspace'));
  },
});

export const workspaceMembershipSpec: NodeSpec<WorkspaceMembership> = resourceSpec<WorkspaceMembership>('workspace_membership', {
  compact: ['user', 'workspace'],
  more: ['user_task_list', 'is_active', 'is_admin', 'is_guest', 'is_view_only', 'created_at', 'vacation_dates'],
  fields: {
    user: userAt('user'),
    workspace: refAt('workspace'),
    user_task_list: (m, rc) => {
      const l = rc.ctx.store.indexes.userTaskLists.get(m.userTaskList);
      return l ? node('userTaskList', l) : null;
    },
    is_active: prop('isActive'),
    is_admin: prop('isAdmin'),
    is_guest: prop('isGuest'),
    created_at: isoAt('createdAt'),
    ...fixed({ is_view_only: false, vacation_dates: null }),
  },
});

export const userTaskListSpec: NodeSpec<UserTaskList> = resourceSpec<UserTaskList>('user_task_list', {
  compact: ['name'],
  more: ['owner', 'workspace'],
  fields: { owner: userAt('owner'), workspace: refAt('workspace'), ...fixed({ name: 'My Tasks' }) },
});

export const teamSpec: NodeSpec<Team> = namedSpec<Team>('team', ['organization', 'permalink_url', 'visibility'], {
  organization: refAt('workspace'),
  permalink_url: (t, rc) => `${rc.ctx.webBaseUrl}/0/${t.workspace}/team/${t.gid}`,
  visibility: prop('visibility'),
  description: prop('description'),
  html_description: (t) => htmlBody(t.description),
});

export const teamMembershipSpec: NodeSpec<TeamMembership> = resourceSpec<TeamMembership>('team_membership', {
  compact: ['user', 'team', 'is_guest', 'is_limited_access', 'is_admin'],
  fields: { user: userAt('user'), team: refAt('team'), is_guest: prop('isGuest'), is_limited_access: prop('isLimitedAccess'), is_admin: prop('isAdmin') },
});
