/** Wire representations of tasks, their project memberships, tags, stories and attachments. */
import type { Attachment, Story, Tag, Task, TaskMembership } from '../model';
import { taskCustomFields } from '../rules/custom-fields';
import { htmlBody, iso, nodeOf, nodeMaker, refs, userRef, type NodeSpec } from './render-node';

export const taskMembershipSpec: NodeSpec<TaskMembership> = {
  compact: ['project', 'section'],
  full: ['project', 'section'],
  fields: {
    project: (m, rc) => nodeOf(rc, m.project),
    section: (m, rc) => (m.section ? nodeOf(rc, m.section) : null),
  },
};

export const taskSpec: NodeSpec<Task> = {
  compact: ['gid', 'resource_type', 'name', 'resource_subtype'],
  full: [
    'gid', 'resource_type', 'name', 'resource_subtype', 'approval_status', 'assignee', 'assignee_status', 'assignee_section', 'completed',
    'completed_at', 'completed_by', 'created_at', 'custom_fields', 'due_at', 'due_on', 'followers', 'hearted', 'hearts', 'liked', 'likes',
    'memberships', 'modified_at', 'notes', 'num_hearts', 'num_likes', 'parent', 'permalink_url', 'projects', 'start_at', 'start_on', 'tags',
    'workspace', 'custom_type', 'custom_type_status_option', 'actual_time_minutes',
  ],
  fields: {
    gid: (t) => t.gid,
    resource_type: () => 'task',
    name: (t) => t.name,
    resource_subtype: (t) => t.resourceSubtype,
    approval_status: (t) => (t.resourceSubtype === 'approval' ? (t.completed ? 'approved' : 'pending') : undefined),
    assignee: (t, rc) => userRef(rc, t.assignee),
    assignee_status: (t) => (t.assignee ? 'upcoming' : undefined),
    assignee_section: () => null,
    completed: (t) => t.completed,
    completed_at: (t) => iso(t.completedAt),
    completed_by: () => null,
    created_at: (t) => iso(t.createdAt),
    created_by: (t, rc) => userRef(rc, t.createdBy),
    custom_fields: (t, rc) => taskCustomFields(rc.ctx.store, t).map(nodeMaker('customFieldValue')),
    due_at: () => null,
    due_on: (t) => t.dueOn,
    followers: (t, rc) => refs(t.followers, (g) => rc.ctx.store.users.get(g), nodeMaker('user')),
    hearted: () => false,
    hearts: () => [],
    liked: () => false,
    likes: () => [],
    memberships: (t) => t.memberships.map(nodeMaker('taskMembership')),
    modified_at: (t) => iso(t.modifiedAt),
    notes: (t, rc) => rc.ctx.store.taskNotes(t),
    html_notes: (t, rc) => htmlBody(rc.ctx.store.taskNotes(t)),
    num_hearts: () => 0,
    num_likes: () => 0,
    num_subtasks: (t, rc) => rc.ctx.store.subtasksByTask.get(t.gid)?.length ?? 0,
    parent: (t, rc) => (t.parent ? nodeOf(rc, t.parent) : null),
    permalink_url: (t, rc) => `${rc.ctx.webBaseUrl}/1/${t.workspace}/task/${t.gid}`,
    projects: (t, rc) => t.memberships.map((m) => nodeOf(rc, m.project)).filter(Boolean),
    start_at: () => null,
    start_on: (t) => t.startOn,
    tags: (t, rc) => refs(t.tags, (g) => rc.ctx.store.tags.get(g), nodeMaker('tag')),
    workspace: (t, rc) => nodeOf(rc, t.workspace),
    custom_type: (t, rc) => (t.customType ? nodeOf(rc, t.customType) : null),
    custom_type_status_option: () => null,
    actual_time_minutes: () => null,
    dependencies: () => [],
    dependents: () => [],
    is_rendered_as_separator: () => false,
    external: () => null,
  },
};

export const tagSpec: NodeSpec<Tag> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'color', 'created_at', 'followers', 'notes', 'permalink_url', 'workspace'],
  fields: {
    gid: (t) => t.gid,
    resource_type: () => 'tag',
    name: (t) => t.name,
    color: (t) => t.color,
    created_at: (t) => iso(t.createdAt),
    followers: () => [],
    notes: () => '',
    permalink_url: (t, rc) => `${rc.ctx.webBaseUrl}/0/${t.workspace}/tag/${t.gid}`,
    workspace: (t, rc) => nodeOf(rc, t.workspace),
  },
};

export const storySpec: NodeSpec<Story> = {
  compact: ['gid', 'resource_type', 'created_at', 'created_by', 'resource_subtype', 'text'],
  full: ['gid', 'resource_type', 'created_at', 'created_by', 'resource_subtype', 'text', 'type', 'is_edited', 'is_pinned', 'source', 'target', 'liked', 'likes', 'num_likes', 'previews'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'story',
    created_at: (s) => iso(s.createdAt),
    created_by: (s, rc) => userRef(rc, s.createdBy),
    resource_subtype: (s) => s.resourceSubtype,
    text: (s, rc) => rc.ctx.store.storyText(s),
    html_text: (s, rc) => htmlBody(rc.ctx.store.storyText(s)),
    type: (s) => s.type,
    is_edited: (s) => s.isEdited,
    is_pinned: (s) => s.isPinned,
    source: (s) => s.source,
    target: (s, rc) => nodeOf(rc, s.target),
    liked: () => false,
    likes: () => [],
    num_likes: () => 0,
    previews: () => [],
  },
};

const LINK_HOSTS: Record<string, string> = {
  gdrive: 'https://drive.google.example/file/d',
  dropbox: 'https://www.dropbox.example/s',
  box: 'https://app.box.example/file',
  onedrive: 'https://onedrive.live.example/view',
  external: 'https://files.example/view',
};

export const attachmentSpec: NodeSpec<Attachment> = {
  compact: ['gid', 'resource_type', 'name', 'resource_subtype'],
  full: ['gid', 'resource_type', 'name', 'resource_subtype', 'created_at', 'download_url', 'host', 'parent', 'permanent_url', 'size', 'view_url', 'connected_to_app'],
  fields: {
    gid: (a) => a.gid,
    resource_type: () => 'attachment',
    name: (a) => a.name,
    resource_subtype: (a) => a.host,
    created_at: (a) => iso(a.createdAt),
    // Fresh on every read and short-lived: fetch it at once, never store it.
    download_url: (a, rc) => (a.host === 'asana' && a.kind ? rc.ctx.downloads.url(rc.origin, 'attachments', a.gid, rc.ctx.hostility().downloadUrlTtlMs) : null),
    host: (a) => a.host,
    parent: (a, rc) => nodeOf(rc, a.parent),
    permanent_url: (a, rc) => (a.host === 'asana' ? `${rc.ctx.webBaseUrl}/app/asana/-/get_asset?asset_id=${a.gid}` : null),
    size: (a, rc) => (a.host === 'asana' ? rc.ctx.documents.size(a) : null),
    view_url: (a, rc) => (a.host === 'asana' ? `${rc.ctx.webBaseUrl}/app/asana/-/view_asset?asset_id=${a.gid}` : `${LINK_HOSTS[a.host] ?? LINK_HOSTS.external}/${a.gid}`),
    connected_to_app: () => false,
  },
};
