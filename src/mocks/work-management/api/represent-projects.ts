/** Wire representations of projects, their memberships and sections, status updates and project statuses. */
import type { Gid, Membership, Project, ProjectStatus, Section, StatusUpdate } from '../model';
import { projectCustomFields } from '../rules/portfolio-custom-fields';
import { htmlBody, iso, nodeOf, node, nodeMaker, refs, userRef, type Node, type NodeSpec, type RenderContext } from './render-node';

export const projectSpec: NodeSpec<Project> = {
  compact: ['gid', 'resource_type', 'name'],
  full: [
    'gid', 'resource_type', 'name', 'archived', 'color', 'completed', 'completed_at', 'created_at', 'current_status', 'current_status_update',
    'custom_field_settings', 'custom_fields', 'default_access_level', 'default_view', 'due_date', 'due_on', 'followers', 'icon', 'members',
    'minimum_access_level_for_customization', 'minimum_access_level_for_sharing', 'modified_at', 'notes', 'owner', 'permalink_url',
    'privacy_setting', 'public', 'start_on', 'team', 'workspace', 'custom_type',
  ],
  fields: {
    gid: (p) => p.gid,
    resource_type: () => 'project',
    name: (p) => p.name,
    archived: (p) => p.archived,
    color: (p) => p.color,
    completed: (p) => p.completed,
    completed_at: () => null,
    created_at: (p) => iso(p.createdAt),
    current_status: (p, rc) => {
      const s = rc.ctx.store;
      const list = s.projectStatusesByProject.get(p.gid) ?? [];
      const last = list.length ? s.projectStatuses.get(list[list.length - 1] as Gid) : undefined;
      return last ? node('projectStatus', last) : null;
    },
    current_status_update: (p, rc) => latestStatusUpdate(rc, p.gid),
    custom_field_settings: (p, rc) => rc.ctx.store.settingsOf(p.gid).map(nodeMaker('customFieldSetting')),
    custom_fields: (p, rc) => projectCustomFields(rc.ctx.store, p).map(nodeMaker('customFieldValue')),
    default_access_level: (p) => p.defaultAccessLevel,
    default_view: () => 'list',
    due_date: (p) => p.dueOn,
    due_on: (p) => p.dueOn,
    followers: (p, rc) => refs(p.followers, (g) => rc.ctx.store.users.get(g), nodeMaker('user')),
    icon: () => 'list',
    members: (p, rc) => refs(rc.ctx.store.projectUserMembers(p.gid), (g) => rc.ctx.store.users.get(g), nodeMaker('user')),
    minimum_access_level_for_customization: () => 'editor',
    minimum_access_level_for_sharing: () => 'editor',
    modified_at: (p) => iso(p.modifiedAt),
    notes: (p) => p.notes ?? '',
    html_notes: (p) => htmlBody(p.notes ?? ''),
    owner: (p, rc) => userRef(rc, p.owner),
    permalink_url: (p, rc) => `${rc.ctx.webBaseUrl}/1/${p.workspace}/project/${p.gid}`,
    privacy_setting: (p) => p.privacySetting,
    public: (p) => p.privacySetting === 'public_to_workspace',
    start_on: (p) => p.startOn,
    team: (p, rc) => (p.team ? nodeOf(rc, p.team) : null),
    workspace: (p, rc) => nodeOf(rc, p.workspace),
    custom_type: (p, rc) => (p.customType ? nodeOf(rc, p.customType) : null),
  },
};

export function latestStatusUpdate(rc: RenderContext, parent: Gid): Node | null {
  const s = rc.ctx.store;
  const list = s.statusUpdatesByParent.get(parent) ?? [];
  const last = list.length ? s.statusUpdates.get(list[list.length - 1] as Gid) : undefined;
  return last ? node('statusUpdate', last) : null;
}

export const membershipSpec: NodeSpec<Membership> = {
  compact: ['gid', 'resource_type', 'resource_subtype', 'parent', 'member', 'access_level'],
  full: ['gid', 'resource_type', 'resource_subtype', 'parent', 'member', 'access_level'],
  fields: {
    gid: (m) => m.gid,
    resource_type: () => 'membership',
    resource_subtype: (m) => `${m.parentType}_membership`,
    parent: (m, rc) => nodeOf(rc, m.parent),
    member: (m, rc) => nodeOf(rc, m.member),
    access_level: (m) => m.accessLevel,
  },
};

/** The legacy `/projects/{gid}/project_memberships` shape (users only). */
export const legacyProjectMembershipSpec: NodeSpec<Membership> = {
  compact: ['gid', 'resource_type', 'member', 'access_level'],
  full: ['gid', 'resource_type', 'user', 'project', 'member', 'access_level', 'write_access'],
  fields: {
    gid: (m) => m.gid,
    resource_type: () => 'project_membership',
    member: (m, rc) => nodeOf(rc, m.member),
    user: (m, rc) => (m.memberType === 'user' ? userRef(rc, m.member) : null),
    project: (m, rc) => nodeOf(rc, m.parent),
    parent: (m, rc) => nodeOf(rc, m.parent),
    access_level: (m) => m.accessLevel,
    write_access: (m) => (m.accessLevel === 'admin' || m.accessLevel === 'editor' ? 'full_write' : 'comment_only'),
  },
};

export const sectionSpec: NodeSpec<Section> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'created_at', 'project', 'projects'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'section',
    name: (s) => s.name,
    created_at: (s) => iso(s.createdAt),
    project: (s, rc) => nodeOf(rc, s.project),
    projects: (s, rc) => [nodeOf(rc, s.project)].filter(Boolean),
  },
};

export const statusUpdateSpec: NodeSpec<StatusUpdate> = {
  compact: ['gid', 'resource_type', 'title', 'resource_subtype'],
  full: ['gid', 'resource_type', 'title', 'resource_subtype', 'author', 'created_at', 'created_by', 'modified_at', 'parent', 'status_type', 'text', 'hearted', 'liked', 'num_likes'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'status_update',
    title: (s) => s.title,
    resource_subtype: (s) => `${s.parentType}_status_update`,
    author: (s, rc) => userRef(rc, s.author),
    created_at: (s) => iso(s.createdAt),
    created_by: (s, rc) => userRef(rc, s.author),
    modified_at: (s) => iso(s.createdAt),
    parent: (s, rc) => nodeOf(rc, s.parent),
    status_type: (s) => s.statusType,
    text: (s) => s.text,
    html_text: (s) => htmlBody(s.text),
    hearted: () => false,
    liked: () => false,
    num_likes: () => 0,
  },
};

export const projectStatusSpec: NodeSpec<ProjectStatus> = {
  compact: ['gid', 'resource_type', 'title'],
  full: ['gid', 'resource_type', 'title', 'author', 'color', 'created_at', 'created_by', 'modified_at', 'text'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'project_status',
    title: (s) => s.title,
    author: (s, rc) => userRef(rc, s.author),
    color: (s) => s.color,
    created_at: (s) => iso(s.createdAt),
    created_by: (s, rc) => userRef(rc, s.author),
    modified_at: (s) => iso(s.createdAt),
    text: (s) => s.text,
    html_text: (s) => htmlBody(s.text),
  },
};
