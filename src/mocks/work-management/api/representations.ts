/**
 * How records look on the wire. Each resource type declares its compact fields (collections and
 * nested references), its full fields (single-object GETs; "[Opt In]" fields left out) and one
 * getter per field. `opt_fields` selects exactly the named paths plus `gid` (reference §1):
 * naming a reference without sub-fields (`assignee`) gives `{gid, resource_type}`; naming
 * sub-fields (`assignee.email`) gives `{gid, email}`.
 */
import type { MockContext } from '../mock-context';
import type {
  Attachment,
  CustomField,
  CustomFieldSetting,
  CustomType,
  EnumOption,
  Goal,
  Gid,
  Membership,
  Portfolio,
  Project,
  ProjectPortfolioSetting,
  ProjectStatus,
  ProjectTemplate,
  Section,
  StatusUpdate,
  Story,
  Tag,
  Task,
  TaskMembership,
  Team,
  TeamMembership,
  User,
  UserTaskList,
  Workspace,
  WorkspaceMembership,
} from '../model';
import { displayValue, taskCustomFields, type TaskFieldEntry } from '../rules/custom-fields';
import type { ExportFile, Job, OrganizationExport } from '../rules/jobs';
import { projectCustomFields } from '../rules/portfolio-custom-fields';
import type { Selection } from './opt-fields';
import type { ApiRequest } from './route-table';

export interface RenderContext {
  ctx: MockContext;
  /** `http://host:port` of the request, for download URLs. */
  origin: string;
}

type Getter<T> = (obj: T, rc: RenderContext) => unknown;

interface NodeSpec<T> {
  compact: readonly string[] | ((obj: T) => readonly string[]);
  full: readonly string[] | ((obj: T) => readonly string[]);
  fields: Record<string, Getter<T>>;
}

const NODE = Symbol('node');

export interface Node {
  [NODE]: NodeSpec<never>;
  obj: unknown;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && NODE in v;
}

function makeNode<T>(spec: NodeSpec<T>, obj: T): Node {
  return { [NODE]: spec as unknown as NodeSpec<never>, obj };
}

function fieldList<T>(list: NodeSpec<T>['compact'], obj: T): readonly string[] {
  return typeof list === 'function' ? list(obj) : list;
}

export function render(value: unknown, sel: Selection | 'compact' | 'full', rc: RenderContext): unknown {
  if (Array.isArray(value)) return value.map((v) => render(v, sel, rc));
  if (!isNode(value)) return value;
  const spec = value[NODE] as unknown as NodeSpec<unknown>;
  const obj = value.obj;
  const names = sel === 'compact' ? fieldList(spec.compact, obj) : sel === 'full' ? fieldList(spec.full, obj) : ['gid', ...sel.keys()];
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const getter = spec.fields[name];
    if (!getter || name in out) continue;
    const v = getter(obj, rc);
    const sub = sel instanceof Map ? sel.get(name) : undefined;
    if (sub instanceof Map) out[name] = render(v, sub, rc);
    else if (sub === true) out[name] = renderLeaf(v, rc);
    else out[name] = render(v, 'compact', rc);
  }
  return out;
}

/** A reference named without sub-fields: its identity only (value objects: compact). */
function renderLeaf(value: unknown, rc: RenderContext): unknown {
  if (Array.isArray(value)) return value.map((v) => renderLeaf(v, rc));
  if (!isNode(value)) return value;
  const spec = value[NODE] as unknown as NodeSpec<unknown>;
  if (spec.fields.gid && spec.fields.resource_type) return { gid: spec.fields.gid(value.obj, rc), resource_type: spec.fields.resource_type(value.obj, rc) };
  return render(value, 'compact', rc);
}

export function renderOne(req: ApiRequest, ctx: MockContext, value: Node): unknown {
  return render(value, req.fields ?? 'full', { ctx, origin: req.origin });
}

export function renderMany(req: ApiRequest, ctx: MockContext, values: Node[]): unknown[] {
  const rc = { ctx, origin: req.origin };
  return values.map((v) => render(v, req.fields ?? 'compact', rc));
}

// ----------------------------------------------------------------------------------------------
// Helpers
// ----------------------------------------------------------------------------------------------

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const htmlBody = (text: string): string => `<body>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</body>`;

function refs<T>(gids: readonly Gid[], lookup: (gid: Gid) => T | undefined, make: (t: T) => Node): Node[] {
  const out: Node[] = [];
  for (const gid of gids) {
    const item = lookup(gid);
    if (item !== undefined) out.push(make(item));
  }
  return out;
}

function userRef(rc: RenderContext, gid: Gid | null): Node | null {
  const u = gid ? rc.ctx.store.users.get(gid) : undefined;
  return u ? nodes.user(u) : null;
}

function hash(gid: string): number {
  let h = 0;
  for (let i = 0; i < gid.length; i++) h = (h * 31 + gid.charCodeAt(i)) | 0;
  return Math.abs(h);
}

// ----------------------------------------------------------------------------------------------
// Specs
// ----------------------------------------------------------------------------------------------

const workspaceSpec: NodeSpec<Workspace> = {
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

const userSpec: NodeSpec<User> = {
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
      return refs(ws, (g) => s.workspaces.get(g), nodes.workspace);
    },
  },
};

const workspaceMembershipSpec: NodeSpec<WorkspaceMembership> = {
  compact: ['gid', 'resource_type', 'user', 'workspace'],
  full: ['gid', 'resource_type', 'user', 'workspace', 'user_task_list', 'is_active', 'is_admin', 'is_guest', 'is_view_only', 'created_at', 'vacation_dates'],
  fields: {
    gid: (m) => m.gid,
    resource_type: () => 'workspace_membership',
    user: (m, rc) => userRef(rc, m.user),
    workspace: (m, rc) => nodeOf(rc, m.workspace),
    user_task_list: (m, rc) => {
      const l = rc.ctx.store.userTaskLists.get(m.userTaskList);
      return l ? nodes.userTaskList(l) : null;
    },
    is_active: (m) => m.isActive,
    is_admin: (m) => m.isAdmin,
    is_guest: (m) => m.isGuest,
    is_view_only: () => false,
    created_at: (m) => iso(m.createdAt),
    vacation_dates: () => null,
  },
};

const userTaskListSpec: NodeSpec<UserTaskList> = {
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

const teamSpec: NodeSpec<Team> = {
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

const teamMembershipSpec: NodeSpec<TeamMembership> = {
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

const projectSpec: NodeSpec<Project> = {
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
      return last ? nodes.projectStatus(last) : null;
    },
    current_status_update: (p, rc) => latestStatusUpdate(rc, p.gid),
    custom_field_settings: (p, rc) => rc.ctx.store.settingsOf(p.gid).map(nodes.customFieldSetting),
    custom_fields: (p, rc) => projectCustomFields(rc.ctx.store, p).map(nodes.customFieldValue),
    default_access_level: (p) => p.defaultAccessLevel,
    default_view: () => 'list',
    due_date: (p) => p.dueOn,
    due_on: (p) => p.dueOn,
    followers: (p, rc) => refs(p.followers, (g) => rc.ctx.store.users.get(g), nodes.user),
    icon: () => 'list',
    members: (p, rc) => refs(rc.ctx.store.projectUserMembers(p.gid), (g) => rc.ctx.store.users.get(g), nodes.user),
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

function latestStatusUpdate(rc: RenderContext, parent: Gid): Node | null {
  const s = rc.ctx.store;
  const list = s.statusUpdatesByParent.get(parent) ?? [];
  const last = list.length ? s.statusUpdates.get(list[list.length - 1] as Gid) : undefined;
  return last ? nodes.statusUpdate(last) : null;
}

const membershipSpec: NodeSpec<Membership> = {
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
const legacyProjectMembershipSpec: NodeSpec<Membership> = {
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

const sectionSpec: NodeSpec<Section> = {
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

const taskMembershipSpec: NodeSpec<TaskMembership> = {
  compact: ['project', 'section'],
  full: ['project', 'section'],
  fields: {
    project: (m, rc) => nodeOf(rc, m.project),
    section: (m, rc) => (m.section ? nodeOf(rc, m.section) : null),
  },
};

const taskSpec: NodeSpec<Task> = {
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
    custom_fields: (t, rc) => taskCustomFields(rc.ctx.store, t).map(nodes.customFieldValue),
    due_at: () => null,
    due_on: (t) => t.dueOn,
    followers: (t, rc) => refs(t.followers, (g) => rc.ctx.store.users.get(g), nodes.user),
    hearted: () => false,
    hearts: () => [],
    liked: () => false,
    likes: () => [],
    memberships: (t) => t.memberships.map(nodes.taskMembership),
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
    tags: (t, rc) => refs(t.tags, (g) => rc.ctx.store.tags.get(g), nodes.tag),
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

const VALUE_PROPERTY: Record<CustomField['type'], string> = {
  text: 'text_value',
  number: 'number_value',
  enum: 'enum_value',
  multi_enum: 'multi_enum_values',
  date: 'date_value',
  people: 'people_value',
  reference: 'reference_value',
};

function fieldMetadata(f: CustomField): string[] {
  return [
    'gid', 'resource_type', 'name', 'type', 'resource_subtype',
    ...(f.type === 'enum' || f.type === 'multi_enum' ? ['enum_options'] : []),
    ...(f.type === 'number' ? ['precision'] : []),
    ...(f.type === 'reference' ? ['input_restrictions'] : []),
  ];
}

/** A custom field value on a task: compact field metadata + `enabled`, `display_value` and the typed value. */
const customFieldValueSpec: NodeSpec<TaskFieldEntry> = {
  compact: (e) => [...fieldMetadata(e.field), 'enabled', 'display_value', VALUE_PROPERTY[e.field.type]],
  full: (e) => [...fieldMetadata(e.field), 'enabled', 'display_value', VALUE_PROPERTY[e.field.type]],
  fields: {
    gid: (e) => e.field.gid,
    resource_type: () => 'custom_field',
    name: (e) => e.field.name,
    type: (e) => e.field.type,
    resource_subtype: (e) => e.field.type,
    enum_options: (e, rc) => refs(e.field.enumOptions, (g) => rc.ctx.store.enumOptions.get(g), nodes.enumOption),
    precision: (e) => e.field.precision,
    input_restrictions: (e) => e.field.inputRestrictions,
    enabled: (e) => e.enabled,
    display_value: (e, rc) => displayValue(rc.ctx.store, e.field, e.value),
    text_value: (e) => (e.value?.type === 'text' ? e.value.text : e.field.type === 'text' ? null : undefined),
    number_value: (e) => (e.value?.type === 'number' ? e.value.number : e.field.type === 'number' ? null : undefined),
    enum_value: (e, rc) => {
      if (e.field.type !== 'enum') return undefined;
      const o = e.value?.type === 'enum' ? rc.ctx.store.enumOptions.get(e.value.option) : undefined;
      return o ? nodes.enumOption(o) : null;
    },
    multi_enum_values: (e, rc) => (e.field.type !== 'multi_enum' ? undefined : e.value?.type === 'multi_enum' ? refs(e.value.options, (g) => rc.ctx.store.enumOptions.get(g), nodes.enumOption) : []),
    date_value: (e) => (e.field.type !== 'date' ? undefined : e.value?.type === 'date' ? { date: e.value.date, date_time: e.value.dateTime } : null),
    people_value: (e, rc) => (e.field.type !== 'people' ? undefined : e.value?.type === 'people' ? refs(e.value.users, (g) => rc.ctx.store.users.get(g), nodes.user) : []),
    reference_value: (e, rc) => (e.field.type !== 'reference' ? undefined : e.value?.type === 'reference' ? e.value.refs.map((g) => nodeOf(rc, g)).filter(Boolean) : []),
  },
};

const enumOptionSpec: NodeSpec<EnumOption> = {
  compact: ['gid', 'resource_type', 'name', 'enabled', 'color'],
  full: ['gid', 'resource_type', 'name', 'enabled', 'color'],
  fields: {
    gid: (o) => o.gid,
    resource_type: () => 'enum_option',
    name: (o) => o.name,
    enabled: (o) => o.enabled,
    color: (o) => o.color,
  },
};

const customFieldSpec: NodeSpec<CustomField> = {
  compact: (f) => fieldMetadata(f),
  full: (f) => [...fieldMetadata(f), 'precision', 'created_by', 'privacy_setting', 'is_global_to_workspace', 'has_notifications_enabled', 'format', 'is_formula_field'],
  fields: {
    gid: (f) => f.gid,
    resource_type: () => 'custom_field',
    name: (f) => f.name,
    type: (f) => f.type,
    resource_subtype: (f) => f.type,
    enum_options: (f, rc) => (f.type === 'enum' || f.type === 'multi_enum' ? refs(f.enumOptions, (g) => rc.ctx.store.enumOptions.get(g), nodes.enumOption) : undefined),
    precision: (f) => (f.type === 'number' ? f.precision : undefined),
    input_restrictions: (f) => (f.type === 'reference' ? f.inputRestrictions : undefined),
    description: (f) => f.description,
    created_by: (f, rc) => userRef(rc, f.createdBy),
    privacy_setting: (f) => f.privacySetting,
    is_global_to_workspace: () => true,
    has_notifications_enabled: () => true,
    format: (f) => (f.type === 'number' ? 'custom' : 'none'),
    is_formula_field: () => false,
  },
};

const customFieldSettingSpec: NodeSpec<CustomFieldSetting> = {
  compact: ['gid', 'resource_type', 'custom_field', 'is_important', 'parent', 'project'],
  full: ['gid', 'resource_type', 'custom_field', 'is_important', 'parent', 'project'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'custom_field_setting',
    custom_field: (s, rc) => nodeOf(rc, s.field),
    is_important: (s) => s.isImportant,
    parent: (s, rc) => nodeOf(rc, s.parent),
    project: (s, rc) => (s.parentType === 'project' ? nodeOf(rc, s.parent) : undefined),
  },
};

const customTypeSpec: NodeSpec<CustomType> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'status_options'],
  fields: { gid: (c) => c.gid, resource_type: () => 'custom_type', name: (c) => c.name, status_options: () => [] },
};

const tagSpec: NodeSpec<Tag> = {
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

const storySpec: NodeSpec<Story> = {
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

const attachmentSpec: NodeSpec<Attachment> = {
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

const statusUpdateSpec: NodeSpec<StatusUpdate> = {
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

const projectStatusSpec: NodeSpec<ProjectStatus> = {
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

const portfolioSpec: NodeSpec<Portfolio> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'color', 'created_at', 'created_by', 'custom_field_settings', 'current_status_update', 'due_on', 'start_on', 'members', 'owner', 'permalink_url', 'privacy_setting', 'public', 'workspace', 'default_access_level'],
  fields: {
    gid: (p) => p.gid,
    resource_type: () => 'portfolio',
    name: (p) => p.name,
    color: (p) => p.color,
    created_at: (p) => iso(p.createdAt),
    created_by: (p, rc) => userRef(rc, p.owner),
    custom_field_settings: (p, rc) => rc.ctx.store.settingsOf(p.gid).map(nodes.customFieldSetting),
    current_status_update: (p, rc) => latestStatusUpdate(rc, p.gid),
    due_on: () => null,
    start_on: () => null,
    members: (p, rc) => refs(rc.ctx.store.projectUserMembers(p.gid), (g) => rc.ctx.store.users.get(g), nodes.user),
    owner: (p, rc) => userRef(rc, p.owner),
    permalink_url: (p, rc) => `${rc.ctx.webBaseUrl}/0/portfolio/${p.gid}`,
    privacy_setting: (p) => p.privacySetting,
    public: (p) => p.privacySetting === 'public_to_domain',
    workspace: (p, rc) => nodeOf(rc, p.workspace),
    default_access_level: () => 'viewer',
    archived: (p) => p.archived,
  },
};

const projectPortfolioSettingSpec: NodeSpec<ProjectPortfolioSetting> = {
  compact: ['gid', 'resource_type', 'project', 'portfolio', 'is_access_control_inherited'],
  full: ['gid', 'resource_type', 'project', 'portfolio', 'is_access_control_inherited'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'project_portfolio_setting',
    project: (s, rc) => nodeOf(rc, s.project),
    portfolio: (s, rc) => nodeOf(rc, s.portfolio),
    is_access_control_inherited: (s) => s.isAccessControlInherited,
  },
};

const goalSpec: NodeSpec<Goal> = {
  compact: ['gid', 'resource_type', 'name', 'owner'],
  full: ['gid', 'resource_type', 'name', 'owner', 'notes', 'due_on', 'start_on', 'is_workspace_level', 'team', 'workspace', 'followers', 'status', 'privacy_setting', 'time_period', 'current_status_update', 'metric'],
  fields: {
    gid: (g) => g.gid,
    resource_type: () => 'goal',
    name: (g) => g.name,
    owner: (g, rc) => userRef(rc, g.owner),
    notes: () => '',
    due_on: () => null,
    start_on: () => null,
    is_workspace_level: (g) => g.isWorkspaceLevel,
    team: (g, rc) => (g.team ? nodeOf(rc, g.team) : null),
    workspace: (g, rc) => nodeOf(rc, g.workspace),
    followers: (g, rc) => refs(g.followers, (x) => rc.ctx.store.users.get(x), nodes.user),
    status: (g, rc) => {
      const last = latestStatusUpdate(rc, g.gid);
      return last ? (rc.ctx.store.statusUpdates.get((last.obj as StatusUpdate).gid)?.statusType ?? null) : null;
    },
    privacy_setting: (g) => g.privacySetting,
    time_period: () => null,
    current_status_update: (g, rc) => latestStatusUpdate(rc, g.gid),
    metric: () => null,
  },
};

const projectTemplateSpec: NodeSpec<ProjectTemplate> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'description', 'html_description', 'owner', 'team', 'public', 'requested_dates', 'requested_roles', 'color'],
  fields: {
    gid: (t) => t.gid,
    resource_type: () => 'project_template',
    name: (t) => t.name,
    description: (t) => t.description,
    html_description: (t) => htmlBody(t.description),
    owner: (t, rc) => userRef(rc, t.owner),
    team: (t, rc) => nodeOf(rc, t.team),
    public: (t) => t.public,
    requested_dates: (t) => t.requestedDates.map((d) => ({ ...d })),
    requested_roles: (t) => t.requestedRoles.map((r) => ({ ...r })),
    color: (t) => t.color,
  },
};

const exportFileSpec: NodeSpec<{ file: ExportFile; ready: boolean }> = {
  compact: ['gid', 'resource_type', 'created_at', 'completed_at', 'download_url'],
  full: ['gid', 'resource_type', 'created_at', 'completed_at', 'download_url'],
  fields: {
    gid: (e) => e.file.gid,
    resource_type: (e) => e.file.kind,
    created_at: (e) => iso(e.file.createdAt),
    completed_at: (e, rc) => (e.ready ? iso(rc.ctx.store.now()) : null),
    download_url: (e, rc) => (e.ready ? rc.ctx.downloads.url(rc.origin, 'exports', e.file.gid, rc.ctx.hostility().exportUrlTtlMs) : null),
  },
};

const jobSpec: NodeSpec<Job> = {
  compact: ['gid', 'resource_type', 'resource_subtype', 'status', 'new_project', 'new_task', 'new_project_template', 'new_graph_export', 'new_resource_export'],
  full: ['gid', 'resource_type', 'resource_subtype', 'status', 'new_project', 'new_task', 'new_project_template', 'new_graph_export', 'new_resource_export'],
  fields: {
    gid: (j) => j.gid,
    resource_type: () => 'job',
    resource_subtype: (j) => j.subtype,
    status: (j, rc) => rc.ctx.jobs.status(j),
    new_project: (j, rc) => (j.newProject ? nodeOf(rc, j.newProject) : null),
    new_task: (j, rc) => (j.newTask ? nodeOf(rc, j.newTask) : null),
    new_project_template: () => null,
    new_graph_export: (j, rc) => exportOf(rc, j, 'graph_export'),
    new_resource_export: (j, rc) => exportOf(rc, j, 'resource_export'),
  },
};

function exportOf(rc: RenderContext, job: Job, kind: ExportFile['kind']): Node | null {
  const file = job.exportGid ? rc.ctx.jobs.files.get(job.exportGid) : undefined;
  if (!file || file.kind !== kind) return null;
  return makeNode(exportFileSpec, { file, ready: rc.ctx.jobs.status(job) === 'succeeded' });
}

const organizationExportSpec: NodeSpec<OrganizationExport> = {
  compact: ['gid', 'resource_type', 'created_at', 'download_url', 'state', 'organization'],
  full: ['gid', 'resource_type', 'created_at', 'download_url', 'state', 'organization'],
  fields: {
    gid: (e) => e.gid,
    resource_type: () => 'organization_export',
    created_at: (e) => iso(e.createdAt),
    download_url: (e, rc) => (rc.ctx.jobs.organizationExportState(e) === 'finished' ? rc.ctx.downloads.url(rc.origin, 'exports', e.gid, rc.ctx.hostility().exportUrlTtlMs) : null),
    state: (e, rc) => rc.ctx.jobs.organizationExportState(e),
    organization: (e, rc) => nodeOf(rc, e.organization),
  },
};

export const nodes = {
  workspace: (w: Workspace) => makeNode(workspaceSpec, w),
  user: (u: User) => makeNode(userSpec, u),
  workspaceMembership: (m: WorkspaceMembership) => makeNode(workspaceMembershipSpec, m),
  userTaskList: (l: UserTaskList) => makeNode(userTaskListSpec, l),
  team: (t: Team) => makeNode(teamSpec, t),
  teamMembership: (m: TeamMembership) => makeNode(teamMembershipSpec, m),
  project: (p: Project) => makeNode(projectSpec, p),
  membership: (m: Membership) => makeNode(membershipSpec, m),
  legacyProjectMembership: (m: Membership) => makeNode(legacyProjectMembershipSpec, m),
  section: (s: Section) => makeNode(sectionSpec, s),
  task: (t: Task) => makeNode(taskSpec, t),
  taskMembership: (m: TaskMembership) => makeNode(taskMembershipSpec, m),
  customFieldValue: (e: TaskFieldEntry) => makeNode(customFieldValueSpec, e),
  enumOption: (o: EnumOption) => makeNode(enumOptionSpec, o),
  customField: (f: CustomField) => makeNode(customFieldSpec, f),
  customFieldSetting: (s: CustomFieldSetting) => makeNode(customFieldSettingSpec, s),
  customType: (c: CustomType) => makeNode(customTypeSpec, c),
  tag: (t: Tag) => makeNode(tagSpec, t),
  story: (s: Story) => makeNode(storySpec, s),
  attachment: (a: Attachment) => makeNode(attachmentSpec, a),
  statusUpdate: (s: StatusUpdate) => makeNode(statusUpdateSpec, s),
  projectStatus: (s: ProjectStatus) => makeNode(projectStatusSpec, s),
  portfolio: (p: Portfolio) => makeNode(portfolioSpec, p),
  projectPortfolioSetting: (s: ProjectPortfolioSetting) => makeNode(projectPortfolioSettingSpec, s),
  goal: (g: Goal) => makeNode(goalSpec, g),
  job: (j: Job) => makeNode(jobSpec, j),
  organizationExport: (e: OrganizationExport) => makeNode(organizationExportSpec, e),
  projectTemplate: (t: ProjectTemplate) => makeNode(projectTemplateSpec, t),
};

/** The node of any stored object by gid (for references whose type varies). */
export function nodeOf(rc: RenderContext, gid: Gid): Node | null {
  const s = rc.ctx.store;
  switch (s.kindOf(gid)) {
    case 'workspace': return wrap(s.workspaces.get(gid), nodes.workspace);
    case 'user': return wrap(s.users.get(gid), nodes.user);
    case 'team': return wrap(s.teams.get(gid), nodes.team);
    case 'project': return wrap(s.projects.get(gid), nodes.project);
    case 'section': return wrap(s.sections.get(gid), nodes.section);
    case 'task': return wrap(s.tasks.get(gid), nodes.task);
    case 'story': return wrap(s.stories.get(gid), nodes.story);
    case 'attachment': return wrap(s.attachments.get(gid), nodes.attachment);
    case 'custom_field': return wrap(s.customFields.get(gid), nodes.customField);
    case 'custom_type': return wrap(s.customTypes.get(gid), nodes.customType);
    case 'tag': return wrap(s.tags.get(gid), nodes.tag);
    case 'portfolio': return wrap(s.portfolios.get(gid), nodes.portfolio);
    case 'goal': return wrap(s.goals.get(gid), nodes.goal);
    case 'user_task_list': return wrap(s.userTaskLists.get(gid), nodes.userTaskList);
    case 'project_template': return wrap(s.projectTemplates.get(gid), nodes.projectTemplate);
    default: return null;
  }
}

function wrap<T>(value: T | undefined, make: (v: T) => Node): Node | null {
  return value === undefined ? null : make(value);
}
