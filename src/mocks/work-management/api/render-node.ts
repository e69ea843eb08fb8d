/**
 * How records look on the wire. Each resource type declares its compact fields (collections and
 * nested references), its full fields (single-object GETs; "[Opt In]" fields left out) and one
 * getter per field. `opt_fields` selects exactly the named paths plus `gid` (reference §1):
 * naming a reference without sub-fields (`assignee`) gives `{gid, resource_type}`; naming
 * sub-fields (`assignee.email`) gives `{gid, email}`.
 */
import type { MockContext } from '../mock-context';
import type { Attachment, CustomField, CustomFieldSetting, CustomType, EnumOption, Goal, Gid, Membership, Portfolio, Project, ProjectPortfolioSetting, ProjectStatus, ProjectTemplate, Section, StatusUpdate, Story, Tag, Task, TaskMembership, Team, TeamMembership, User, UserTaskList, Workspace, WorkspaceMembership } from '../model';
import type { TaskFieldEntry } from '../rules/custom-fields';
import type { Job, OrganizationExport } from '../rules/jobs';
import type { Selection } from './opt-fields';
import type { ApiRequest } from './route-table';

export interface RenderContext {
  ctx: MockContext;
  /** `http://host:port` of the request, for download URLs. */
  origin: string;
}

export type Getter<T> = (obj: T, rc: RenderContext) => unknown;

export interface NodeSpec<T> {
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

export function makeNode<T>(spec: NodeSpec<T>, obj: T): Node {
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

export const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
export const htmlBody = (text: string): string => `<body>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</body>`;

export function refs<T>(gids: readonly Gid[], lookup: (gid: Gid) => T | undefined, make: (t: T) => Node): Node[] {
  const out: Node[] = [];
  for (const gid of gids) {
    const item = lookup(gid);
    if (item !== undefined) out.push(make(item));
  }
  return out;
}

export function userRef(rc: RenderContext, gid: Gid | null): Node | null {
  const u = gid ? rc.ctx.store.users.get(gid) : undefined;
  return u ? nodes.user(u) : null;
}

export function hash(gid: string): number {
  let h = 0;
  for (let i = 0; i < gid.length; i++) h = (h * 31 + gid.charCodeAt(i)) | 0;
  return Math.abs(h);
}

/** One maker per resource type. The object is filled by representations.ts, which holds every family's specs. */
export interface NodeMakers {
  workspace(w: Workspace): Node;
  user(u: User): Node;
  workspaceMembership(m: WorkspaceMembership): Node;
  userTaskList(l: UserTaskList): Node;
  team(t: Team): Node;
  teamMembership(m: TeamMembership): Node;
  project(p: Project): Node;
  membership(m: Membership): Node;
  legacyProjectMembership(m: Membership): Node;
  section(s: Section): Node;
  task(t: Task): Node;
  taskMembership(m: TaskMembership): Node;
  customFieldValue(e: TaskFieldEntry): Node;
  enumOption(o: EnumOption): Node;
  customField(f: CustomField): Node;
  customFieldSetting(s: CustomFieldSetting): Node;
  customType(c: CustomType): Node;
  tag(t: Tag): Node;
  story(s: Story): Node;
  attachment(a: Attachment): Node;
  statusUpdate(s: StatusUpdate): Node;
  projectStatus(s: ProjectStatus): Node;
  portfolio(p: Portfolio): Node;
  projectPortfolioSetting(s: ProjectPortfolioSetting): Node;
  goal(g: Goal): Node;
  job(j: Job): Node;
  organizationExport(e: OrganizationExport): Node;
  projectTemplate(t: ProjectTemplate): Node;
}

/** The node makers; empty until representations.ts is loaded (everything that renders imports it). */
export const nodes = {} as NodeMakers;

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
