/** Wire representations of tasks, their project memberships, tags, stories and attachments. */
import type { Attachment, Story, Tag, Task, TaskMembership } from '../model';
import { taskCustomFields } from '../rules/custom-fields';
import { fixed, isoAt, namedSpec, prop, refAt, resourceSpec, userAt, usersAt } from './field-specs';
import { htmlBody, nodeMaker, nodeOf, refs, type NodeSpec } from './render-node';

export const taskMembershipSpec: NodeSpec<TaskMembership> = {
  compact: ['project', 'section'],
  full: ['project', 'section'],
  fields: { project: refAt('project'), section: refAt('section') },
};

export const taskSpec: NodeSpec<Task> = resourceSpec<Task>('task', {
  compact: ['name', 'resource_subtype'],
  more: [
    'approval_status',
    'assignee',
    'assignee_status',
    'assignee_section',
    'completed',
    'completed_at',
    'completed_by',
    'created_at',
    'custom_fields',
    'due_at',
    'due_on',
    'followers',
    'hearted',
    'hearts',
    'liked',
    'likes',
    'memberships',
    'modified_at',
    'notes',
    'num_hearts',
    'num_likes',
    'parent',
    'permalink_url',
    'projects',
    'start_at',
    'start_on',
    'tags',
    'workspace',
    'custom_type',
    'custom_type_status_option',
    'actual_time_minutes',
  ],
  fields: {
    name: prop('name'),
    resource_subtype: prop('resourceSubtype'),
    approval_status: (t) => (t.resourceSubtype === 'approval' ? (t.completed ? 'approved' : 'pending') : undefined),
    assignee: userAt('assignee'),
    assignee_status: (t) => (t.assignee ? 'upcoming' : undefined),
    completed: prop('completed'),
    completed_at: isoAt('completedAt'),
    created_at: isoAt('createdAt'),
    created_by: userAt('createdBy'),
    custom_fields: (t, rc) => taskCustomFields(rc.ctx.store, t).map(nodeMaker('customFieldValue')),
    due_on: prop('dueOn'),
    followers: usersAt('followers'),
    memberships: (t) => t.memberships.map(nodeMaker('taskMembership')),
    modified_at: isoAt('modifiedAt'),
    notes: (t, rc) => rc.ctx.store.tasks.notes(t),
    html_notes: (t, rc) => htmlBody(rc.ctx.store.tasks.notes(t)),
    num_subtasks: (t, rc) => rc.ctx.store.indexes.subtasksByTask.get(t.gid)?.length ?? 0,
    parent: refAt('parent'),
    permalink_url: (t, rc) => `${rc.ctx.webBaseUrl}/1/${t.workspace}/task/${t.gid}`,
    projects: (t, rc) => t.memberships.map((m) => nodeOf(rc, m.project)).filter(Boolean),
    start_on: prop('startOn'),
    tags: (t, rc) => refs(t.tags, (g) => rc.ctx.store.indexes.tags.get(g), nodeMaker('tag')),
    workspace: refAt('workspace'),
    custom_type: refAt('customType'),
    ...fixed({
      assignee_section: null,
      completed_by: null,
      due_at: null,
      hearted: false,
      hearts: [],
      liked: false,
      likes: [],
      num_hearts: 0,
      num_likes: 0,
      start_at: null,
      custom_type_status_option: null,
      actual_time_minutes: null,
      dependencies: [],
      dependents: [],
      is_rendered_as_separator: false,
      external: null,
    }),
  },
});

export const tagSpec: NodeSpec<Tag> = namedSpec<Tag>('tag', ['color', 'created_at', 'followers', 'notes', 'permalink_url', 'workspace'], {
  color: prop('color'),
  created_at: isoAt('createdAt'),
  permalink_url: (t, rc) => `${rc.ctx.webBaseUrl}/0/${t.workspace}/tag/${t.gid}`,
  workspace: refAt('workspace'),
  ...fixed({ followers: [], notes: '' }),
});

export const storySpec: NodeSpec<Story> = resourceSpec<Story>('story', {
  compact: ['created_at', 'created_by', 'resource_subtype', 'text'],
  more: ['type', 'is_edited', 'is_pinned', 'source', 'target', 'liked', 'likes', 'num_likes', 'previews'],
  fields: {
    created_at: isoAt('createdAt'),
    created_by: userAt('createdBy'),
    resource_subtype: prop('resourceSubtype'),
    text: (s, rc) => rc.ctx.store.tasks.storyText(s),
    html_text: (s, rc) => htmlBody(rc.ctx.store.tasks.storyText(s)),
    type: prop('type'),
    is_edited: prop('isEdited'),
    is_pinned: prop('isPinned'),
    source: prop('source'),
    target: refAt('target'),
    ...fixed({ liked: false, likes: [], num_likes: 0, previews: [] }),
  },
});

const LINK_HOSTS: Record<string, string> = {
  gdrive: 'https://drive.google.example/file/d',
  dropbox: 'https://www.dropbox.example/s',
  box: 'https://app.box.example/file',
  onedrive: 'https://onedrive.live.example/view',
  external: 'https://files.example/view',
};

export const attachmentSpec: NodeSpec<Attachment> = resourceSpec<Attachment>('attachment', {
  compact: ['name', 'resource_subtype'],
  more: ['created_at', 'download_url', 'host', 'parent', 'permanent_url', 'size', 'view_url', 'connected_to_app'],
  fields: {
    name: prop('name'),
    resource_subtype: prop('host'),
    created_at: isoAt('createdAt'),
    // Fresh on every read and short-lived: fetch it at once, never store it.
    download_url: (a, rc) => (a.host === 'asana' && a.kind ? rc.ctx.downloads.url(rc.origin, 'attachments', a.gid, rc.ctx.hostility().downloadUrlTtlMs) : null),
    host: prop('host'),
    parent: refAt('parent'),
    permanent_url: (a, rc) => (a.host === 'asana' ? `${rc.ctx.webBaseUrl}/app/asana/-/get_asset?asset_id=${a.gid}` : null),
    size: (a, rc) => (a.host === 'asana' ? rc.ctx.documents.size(a) : null),
    view_url: (a, rc) =>
      a.host === 'asana' ? `${rc.ctx.webBaseUrl}/app/asana/-/view_asset?asset_id=${a.gid}` : `${LINK_HOSTS[a.host] ?? LINK_HOSTS.external}/${a.gid}`,
    ...fixed({ connected_to_app: false }),
  },
});
