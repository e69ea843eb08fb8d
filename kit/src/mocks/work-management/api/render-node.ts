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
  AccessRequest,
  Agent,
  Budget,
  GoalRelationship,
  ProjectBrief,
  Rate,
  TaskTemplate,
  TimePeriod,
  TimeTrackingCategory,
  TimeTrackingEntry,
  TimesheetApprovalStatus,
} from '../model';
import type { TaskFieldEntry } from '../rules/custom-fields';
import type { ExportFile, Job, OrganizationExport } from '../rules/jobs';
import type { Selection } from './opt-fields';

/** The record each kind of node wraps: the keys of the spec registry (representations.ts). */
export interface NodeTypes {
  workspace: Workspace;
  user: User;
  workspaceMembership: WorkspaceMembership;
  userTaskList: UserTaskList;
  team: Team;
  teamMembership: TeamMembership;
  project: Project;
  membership: Membership;
  legacyProjectMembership: Membership;
  section: Section;
  task: Task;
  taskMembership: TaskMembership;
  customFieldValue: TaskFieldEntry;
  enumOption: EnumOption;
  customField: CustomField;
  customFieldSetting: CustomFieldSetting;
  customType: CustomType;
  tag: Tag;
  story: Story;
  attachment: Attachment;
  statusUpdate: StatusUpdate;
  projectStatus: ProjectStatus;
  portfolio: Portfolio;
  projectPortfolioSetting: ProjectPortfolioSetting;
  goal: Goal;
  job: Job;
  organizationExport: OrganizationExport;
  projectTemplate: ProjectTemplate;
  exportFile: ExportFileState;
  accessRequest: AccessRequest;
  agent: Agent;
  budget: Budget;
  goalRelationship: GoalRelationship;
  portfolioMembership: Membership;
  projectBrief: ProjectBrief;
  rate: Rate;
  taskTemplate: TaskTemplate;
  timePeriod: TimePeriod;
  timeTrackingCategory: TimeTrackingCategory;
  timeTrackingEntry: TimeTrackingEntry;
  timesheetApprovalStatus: TimesheetApprovalStatus;
}

export type NodeType = keyof NodeTypes;

/** An export file as a job shows it: ready once the job has succeeded. */
export interface ExportFileState {
  file: ExportFile;
  ready: boolean;
}

export type Getter<T> = (obj: T, rc: RenderContext) => unknown;

export interface NodeSpec<T> {
  compact: readonly string[] | ((obj: T) => readonly string[]);
  full: readonly string[] | ((obj: T) => readonly string[]);
  fields: Record<string, Getter<T>>;
  /**
   * A value embedded in its parent, not a reference to another resource, though it carries a
   * `gid`: named without sub-fields it renders compact (a task's custom field value is its field's
   * compact metadata plus the value, seed "Custom field values on a task").
   */
  valueObject?: true;
}

/** One spec per node type, looked up by the renderer through the render context. */
export type SpecRegistry = { readonly [K in NodeType]: NodeSpec<NodeTypes[K]> };

export interface RenderContext {
  ctx: MockContext;
  /** `http://host:port` of the request, for download URLs. */
  origin: string;
  specs: SpecRegistry;
}

/** A record to render as the given type; which fields it shows is the registry's business. */
export class Node {
  constructor(
    readonly type: NodeType,
    readonly obj: unknown,
  ) {}
}

export function node<K extends NodeType>(type: K, obj: NodeTypes[K]): Node {
  return new Node(type, obj);
}

/** `node` for one type, as a function of the record (for `map`). */
export function nodeMaker<K extends NodeType>(type: K): (obj: NodeTypes[K]) => Node {
  return (obj) => new Node(type, obj);
}

function specOf(value: Node, rc: RenderContext): NodeSpec<unknown> {
  return rc.specs[value.type] as NodeSpec<unknown>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** A value object without a spec (a budget's `total`): the named keys only (nested paths allowed). */
function pick(value: Record<string, unknown>, sel: Selection, rc: RenderContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, sub] of sel) if (key in value) out[key] = sub instanceof Map ? render(value[key], sub, rc) : value[key];
  return out;
}

function fieldList<T>(list: NodeSpec<T>['compact'], obj: T): readonly string[] {
  return typeof list === 'function' ? list(obj) : list;
}

export function render(value: unknown, sel: Selection | 'compact' | 'full', rc: RenderContext): unknown {
  if (Array.isArray(value)) return value.map((v) => render(v, sel, rc));
  if (!(value instanceof Node)) return sel instanceof Map && isPlainObject(value) ? pick(value, sel, rc) : value;
  const spec = specOf(value, rc);
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
  if (!(value instanceof Node)) return value;
  const spec = specOf(value, rc);
  if (!spec.valueObject && spec.fields.gid && spec.fields.resource_type)
    return { gid: spec.fields.gid(value.obj, rc), resource_type: spec.fields.resource_type(value.obj, rc) };
  return render(value, 'compact', rc);
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
  const u = gid ? rc.ctx.store.indexes.users.get(gid) : undefined;
  return u ? node('user', u) : null;
}

export function hash(gid: string): number {
  let h = 0;
  for (let i = 0; i < gid.length; i++) h = (h * 31 + gid.charCodeAt(i)) | 0;
  return Math.abs(h);
}

/** The node of any stored object by gid (for references whose type varies). */
export function nodeOf(rc: RenderContext, gid: Gid): Node | null {
  const s = rc.ctx.store;
  switch (s.indexes.kindOf(gid)) {
    case 'workspace':
      return wrap('workspace', s.indexes.workspaces.get(gid));
    case 'user':
      return wrap('user', s.indexes.users.get(gid));
    case 'team':
      return wrap('team', s.indexes.teams.get(gid));
    case 'project':
      return wrap('project', s.indexes.projects.get(gid));
    case 'section':
      return wrap('section', s.indexes.sections.get(gid));
    case 'task':
      return wrap('task', s.indexes.tasks.get(gid));
    case 'story':
      return wrap('story', s.indexes.stories.get(gid));
    case 'attachment':
      return wrap('attachment', s.indexes.attachments.get(gid));
    case 'custom_field':
      return wrap('customField', s.indexes.customFields.get(gid));
    case 'custom_type':
      return wrap('customType', s.indexes.customTypes.get(gid));
    case 'tag':
      return wrap('tag', s.indexes.tags.get(gid));
    case 'portfolio':
      return wrap('portfolio', s.indexes.portfolios.get(gid));
    case 'goal':
      return wrap('goal', s.indexes.goals.get(gid));
    case 'user_task_list':
      return wrap('userTaskList', s.indexes.userTaskLists.get(gid));
    case 'project_template':
      return wrap('projectTemplate', s.indexes.projectTemplates.get(gid));
    case 'time_period':
      return wrap('timePeriod', s.indexes.timePeriods.get(gid));
    case 'time_tracking_category':
      return wrap('timeTrackingCategory', s.indexes.timeTrackingCategories.get(gid));
    default:
      return null;
  }
}

function wrap<K extends NodeType>(type: K, value: NodeTypes[K] | undefined): Node | null {
  return value === undefined ? null : node(type, value);
}
