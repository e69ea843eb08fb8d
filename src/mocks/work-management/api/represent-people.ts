/** Wire representations of workspaces, users, workspace memberships, user task lists, teams and team memberships. */
import type { Team, TeamMembership, User, UserTaskList, Workspace, WorkspaceMembership } from '../model';
import { hash, htmlBody, iso, nodeOf, node, nodeMaker, refs, userRef, type NodeSpec } from './render-node';

export const workspaceSpec: NodeSpec<Workspace> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'email_domains', 'is_organization'],
  fields: {
    gid: (w) => w.gid,
    resource_type: () => 'workspace',
    name: (w) => w.name,
    email_domains: (w) => w.emailDomains,
    is_organization: (w) => w.isOrganization,
  },
};

const PHOTO_SIZES = ['21x21', '27x27', '36x36', '60x60', '128x128', '1024x1024'];

export const userSpec: NodeSpec<User> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'email', 'photo', 'workspaces'],
  fields: {
    gid: (u) => u.gid,
    resource_type: () => 'user',
    name: (u) => u.name,
    email: (u) => u.email,
    photo: (u, rc) =>
      hash(u.gid) % 3 === 0
        ? null
        : Object.fromEntries(PHOTO_SIZES.map((size) => [`image_${size}`, `${rc.ctx.webBaseUrl}/photos/${u.gid}_${size}.${size === '1024x1024' ? 'jpg' : 'png'}`])),
    workspaces: (u, rc) => {
      const s = rc.ctx.store;
      const ws = u.isServiceAccount ? [...s.workspaces.keys()] : s.list(s.workspaceMembershipsByUser.get(u.gid), s.workspaceMemberships).map((m) => m.workspace);
      return refs(ws, (g) => s.workspaces.get(g), nodeMaker('workspace'));
    },
  },
};

export const workspaceMembershipSpec: NodeSpec<WorkspaceMembership> = {
  compact: ['gid', 'resource_type', 'user', 'workspace'],
  full: ['gid', 'resource_type', 'user', 'workspace', 'user_task_list', 'is_active', 'is_admin', 'is_guest', 'is_view_only', 'created_at', 'vacation_dates'],
  fields: {
    gid: (m) => m.gid,
    resource_type: () => 'workspace_membership',
    user: (m, rc) => userRef(rc, m.user),
    workspace: (m, rc) => nodeOf(rc, m.workspace),
    user_task_list: (m, rc) => {
      const l = rc.ctx.store.userTaskLists.get(m.userTaskList);
      return l ? node('userTaskList', l) : null;
    },
    is_active: (m) => m.isActive,
    is_admin: (m) => m.isAdmin,
    is_guest: (m) => m.isGuest,
    is_view_only: () => false,
    created_at: (m) => iso(m.createdAt),
    vacation_dates: () => null,
  },
};

export const userTaskListSpec: NodeSpec<UserTaskList> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'owner', 'workspace'],
  fields: {
    gid: (l) => l.gid,
    resource_type: () => 'user_task_list',
    name: () => 'My Tasks',
    owner: (l, rc) => userRef(rc, l.owner),
    workspace: (l, rc) => nodeOf(rc, l.workspace),
  },
};

export const teamSpec: NodeSpec<Team> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'organization', 'permalink_url', 'visibility'],
  fields: {
    gid: (t) => t.gid,
    resource_type: () => 'team',
    name: (t) => t.name,
    organization: (t, rc) => nodeOf(rc, t.workspace),
    permalink_url: (t, rc) => `${rc.ctx.webBaseUrl}/0/${t.workspace}/team/${t.gid}`,
    visibility: (t) => t.visibility,
    description: (t) => t.description,
    html_description: (t) => htmlBody(t.description),
  },
};

export const teamMembershipSpec: NodeSpec<TeamMembership> = {
  compact: ['gid', 'resource_type', 'user', 'team', 'is_guest', 'is_limited_access', 'is_admin'],
  full: ['gid', 'resource_type', 'user', 'team', 'is_guest', 'is_limited_access', 'is_admin'],
  fields: {
    gid: (m) => m.gid,
    resource_type: () => 'team_membership',
    user: (m, rc) => userRef(rc, m.user),
    team: (m, rc) => nodeOf(rc, m.team),
    is_guest: (m) => m.isGuest,
    is_limited_access: (m) => m.isLimitedAccess,
    is_admin: (m) => m.isAdmin,
  },
};
