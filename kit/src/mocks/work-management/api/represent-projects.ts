/** Wire representations of projects, their memberships and sections, status updates and project statuses. */
import type { Gid, Membership, Project, ProjectStatus, Section, StatusUpdate } from '../model';
import { projectCustomFields } from '../rules/portfolio-custom-fields';
import { fixed, isoAt, namedSpec, prop, refAt, resourceSpec, userAt, usersAt } from './field-specs';
import { htmlBody, nodeMaker, nodeOf, refs, userRef, type Node, type NodeSpec, type RenderContext } from './render-node';

/** The last of the records `index` lists for `parent`, as a node of `make`. */
function latest<T>(index: Map<Gid, Gid[]>, records: Map<Gid, T>, parent: Gid, make: (record: T) => Node): Node | null {
  const list = index.get(parent) ?? [];
  const last = list.length ? records.get(list[list.length - 1] as Gid) : undefined;
  return last ? make(last) : null;
}

export function latestStatusUpdate(rc: RenderContext, parent: Gid): Node | null {
  return latest(rc.ctx.store.indexes.statusUpdatesByParent, rc.ctx.store.indexes.statusUpdates, parent, nodeMaker('statusUpdate'));
}

export const projectSpec: NodeSpec<Project> = namedSpec<Project>(
  'project',
  [
    'archived',
    'color',
    'completed',
    'completed_at',
    'created_at',
    'current_status',
    'current_status_update',
    'custom_field_settings',
    'custom_fields',
    'default_access_level',
    'default_view',
    'due_date',
    'due_on',
    'followers',
    'icon',
    'members',
    'minimum_access_level_for_customization',
    'minimum_access_level_for_sharing',
    'modified_at',
    'notes',
    'owner',
    'permalink_url',
    'privacy_setting',
    'public',
    'start_on',
    'team',
    'workspace',
    'custom_type',
  ],
  {
    archived: prop('archived'),
    color: prop('color'),
    completed: prop('completed'),
    created_at: isoAt('createdAt'),
    current_status: (p, rc) => latest(rc.ctx.store.indexes.projectStatusesByProject, rc.ctx.store.indexes.projectStatuses, p.gid, nodeMaker('projectStatus')),
    current_status_update: (p, rc) => latestStatusUpdate(rc, p.gid),
    custom_field_settings: (p, rc) => rc.ctx.store.catalog.settingsOf(p.gid).map(nodeMaker('customFieldSetting')),
    custom_fields: (p, rc) => projectCustomFields(rc.ctx.store, p).map(nodeMaker('customFieldValue')),
    default_access_level: prop('defaultAccessLevel'),
    due_date: prop('dueOn'),
    due_on: prop('dueOn'),
    followers: usersAt('followers'),
    members: (p, rc) => refs(rc.ctx.store.projects.userMembers(p.gid), (g) => rc.ctx.store.indexes.users.get(g), nodeMaker('user')),
    modified_at: isoAt('modifiedAt'),
    notes: (p) => p.notes ?? '',
    html_notes: (p) => htmlBody(p.notes ?? ''),
    owner: userAt('owner'),
    permalink_url: (p, rc) => `${rc.ctx.webBaseUrl}/1/${p.workspace}/project/${p.gid}`,
    privacy_setting: prop('privacySetting'),
    public: (p) => p.privacySetting === 'public_to_workspace',
    start_on: prop('startOn'),
    team: refAt('team'),
    workspace: refAt('workspace'),
    custom_type: refAt('customType'),
    ...fixed({
      completed_at: null,
      default_view: 'list',
      icon: 'list',
      minimum_access_level_for_customization: 'editor',
      minimum_access_level_for_sharing: 'editor',
    }),
  },
);

export const membershipSpec: NodeSpec<Membership> = resourceSpec<Membership>('membership', {
  compact: ['resource_subtype', 'parent', 'member', 'access_level'],
  fields: { resource_subtype: (m) => `${m.parentType}_membership`, parent: refAt('parent'), member: refAt('member'), access_level: prop('accessLevel') },
});

/** The legacy `/projects/{gid}/project_memberships` shape (users only). */
export const legacyProjectMembershipSpec: NodeSpec<Membership> = resourceSpec<Membership>('project_membership', {
  compact: ['member', 'access_level'],
  full: ['user', 'project', 'member', 'access_level', 'write_access'],
  fields: {
    member: refAt('member'),
    user: (m, rc) => (m.memberType === 'user' ? userRef(rc, m.member) : null),
    project: refAt('parent'),
    parent: refAt('parent'),
    access_level: prop('accessLevel'),
    write_access: (m) => (m.accessLevel === 'admin' || m.accessLevel === 'editor' ? 'full_write' : 'comment_only'),
  },
});

export const sectionSpec: NodeSpec<Section> = namedSpec<Section>('section', ['created_at', 'project', 'projects'], {
  created_at: isoAt('createdAt'),
  project: refAt('project'),
  projects: (s, rc) => [nodeOf(rc, s.project)].filter(Boolean),
});

/** Fields status updates and project statuses share: an author, a text, creation as modification. */
const STATUS_FIELDS = {
  title: prop<StatusUpdate | ProjectStatus, 'title'>('title'),
  author: userAt<StatusUpdate | ProjectStatus>('author'),
  created_at: isoAt<StatusUpdate | ProjectStatus>('createdAt'),
  created_by: userAt<StatusUpdate | ProjectStatus>('author'),
  modified_at: isoAt<StatusUpdate | ProjectStatus>('createdAt'),
  text: prop<StatusUpdate | ProjectStatus, 'text'>('text'),
  html_text: (s: StatusUpdate | ProjectStatus) => htmlBody(s.text),
};

export const statusUpdateSpec: NodeSpec<StatusUpdate> = resourceSpec<StatusUpdate>('status_update', {
  compact: ['title', 'resource_subtype'],
  more: ['author', 'created_at', 'created_by', 'modified_at', 'parent', 'status_type', 'text', 'hearted', 'liked', 'num_likes'],
  fields: {
    ...STATUS_FIELDS,
    resource_subtype: (s) => `${s.parentType}_status_update`,
    parent: refAt('parent'),
    status_type: prop('statusType'),
    ...fixed({ hearted: false, liked: false, num_likes: 0 }),
  },
});

export const projectStatusSpec: NodeSpec<ProjectStatus> = resourceSpec<ProjectStatus>('project_status', {
  compact: ['title'],
  more: ['author', 'color', 'created_at', 'created_by', 'modified_at', 'text'],
  fields: { ...STATUS_FIELDS, color: prop('color') },
});
