/**
 * The state every resource store shares: the maps by gid and the ordered indexes by parent, the
 * clock and gid allocation, the events and the audit log. It holds no rules: the resource stores
 * (people, projects, tasks, catalog) change it, each keeping its own indexes consistent, and
 * readers (routes, rules, the oracle) walk it directly.
 */
import type {
  Gid,
  ResourceType,
  Workspace,
  User,
  WorkspaceMembership,
  UserTaskList,
  Team,
  TeamMembership,
  Project,
  Membership,
  Section,
  Task,
  Story,
  Attachment,
  CustomField,
  EnumOption,
  CustomFieldSetting,
  CustomType,
  Tag,
  Portfolio,
  ProjectPortfolioSetting,
  Goal,
  StatusUpdate,
  ProjectStatus,
  ProjectTemplate,
  Notification,
  AccessRequest,
  Agent,
  Budget,
  GoalRelationship,
  ProjectBrief,
  Rate,
  RuleTrigger,
  TaskTemplate,
  TimePeriod,
  TimeTrackingCategory,
  TimeTrackingEntry,
  TimesheetApprovalStatus,
} from './model-types';
import { AuditLog } from './rules/audit-log';
import { EventLog } from './rules/events';

export const DAY = 86_400_000;

/** Removes one occurrence of `item`; returns whether it was there. */
export function removeItem<T>(list: T[], item: T): boolean {
  const i = list.indexOf(item);
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}

export function push<K, V>(index: Map<K, V[]>, key: K, value: V): void {
  const list = index.get(key);
  if (list) list.push(value);
  else index.set(key, [value]);
}

export function pull<K, V>(index: Map<K, V[]>, key: K, value: V): void {
  const list = index.get(key);
  if (list) removeItem(list, value);
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export interface StoreOptions {
  /** Seeds derived texts (task notes, comment bodies, document contents). */
  seed: string;
  now: () => number;
  /** First gid handed out; gids are decimal strings counting up from it. */
  gidBase?: number;
  eventRetentionMs?: number;
}

export class StoreIndexes {
  readonly seed: string;
  private clock: () => number;
  /** The store's clock (replaceable with setClock, e.g. to move time in tests). */
  readonly now = (): number => this.clock();
  readonly events: EventLog;
  /** The audit log: the security-relevant share of recorded changes, kept for good, never lossy. */
  readonly audit: AuditLog;
  private nextId: number;

  readonly kinds = new Map<Gid, ResourceType>();
  readonly workspaces = new Map<Gid, Workspace>();
  readonly users = new Map<Gid, User>();
  readonly usersByEmail = new Map<string, Gid>();
  readonly workspaceMemberships = new Map<Gid, WorkspaceMembership>();
  readonly userTaskLists = new Map<Gid, UserTaskList>();
  readonly teams = new Map<Gid, Team>();
  readonly teamMemberships = new Map<Gid, TeamMembership>();
  readonly projects = new Map<Gid, Project>();
  readonly memberships = new Map<Gid, Membership>();
  readonly sections = new Map<Gid, Section>();
  readonly tasks = new Map<Gid, Task>();
  readonly stories = new Map<Gid, Story>();
  readonly attachments = new Map<Gid, Attachment>();
  readonly customFields = new Map<Gid, CustomField>();
  readonly enumOptions = new Map<Gid, EnumOption>();
  readonly customFieldSettings = new Map<Gid, CustomFieldSetting>();
  readonly customTypes = new Map<Gid, CustomType>();
  readonly tags = new Map<Gid, Tag>();
  readonly portfolios = new Map<Gid, Portfolio>();
  readonly projectPortfolioSettings = new Map<Gid, ProjectPortfolioSetting>();
  readonly goals = new Map<Gid, Goal>();
  readonly statusUpdates = new Map<Gid, StatusUpdate>();
  readonly projectStatuses = new Map<Gid, ProjectStatus>();
  readonly projectTemplates = new Map<Gid, ProjectTemplate>();
  readonly notifications: Notification[] = [];
  readonly accessRequests = new Map<Gid, AccessRequest>();
  readonly agents = new Map<Gid, Agent>();
  readonly budgets = new Map<Gid, Budget>();
  readonly goalRelationships = new Map<Gid, GoalRelationship>();
  readonly projectBriefs = new Map<Gid, ProjectBrief>();
  readonly rates = new Map<Gid, Rate>();
  readonly ruleTriggers = new Map<Gid, RuleTrigger>();
  readonly taskTemplates = new Map<Gid, TaskTemplate>();
  readonly timePeriods = new Map<Gid, TimePeriod>();
  readonly timeTrackingCategories = new Map<Gid, TimeTrackingCategory>();
  readonly timeTrackingEntries = new Map<Gid, TimeTrackingEntry>();
  readonly timesheetApprovalStatuses = new Map<Gid, TimesheetApprovalStatus>();

  // Indexes: ordered gid lists by parent. Order is creation order unless stated.
  readonly workspaceMembershipsByWorkspace = new Map<Gid, Gid[]>();
  readonly workspaceMembershipsByUser = new Map<Gid, Gid[]>();
  readonly teamsByWorkspace = new Map<Gid, Gid[]>();
  readonly teamMembershipsByTeam = new Map<Gid, Gid[]>();
  readonly teamMembershipsByUser = new Map<Gid, Gid[]>();
  readonly projectsByWorkspace = new Map<Gid, Gid[]>();
  readonly projectsByTeam = new Map<Gid, Gid[]>();
  readonly membershipsByParent = new Map<Gid, Gid[]>();
  readonly membershipsByMember = new Map<Gid, Gid[]>();
  readonly sectionsByProject = new Map<Gid, Gid[]>();
  /** Tasks in a project, in the project's order (new tasks go to the end). */
  readonly tasksByProject = new Map<Gid, Gid[]>();
  readonly tasksBySection = new Map<Gid, Gid[]>();
  readonly subtasksByTask = new Map<Gid, Gid[]>();
  /** Every task of a workspace by creation time (search and resource exports walk it). */
  readonly tasksByWorkspace = new Map<Gid, Gid[]>();
  /** Key `${user}/${workspace}`: the user task list (My Tasks). */
  readonly tasksByAssignee = new Map<string, Gid[]>();
  readonly tasksByTag = new Map<Gid, Gid[]>();
  readonly storiesByTask = new Map<Gid, Gid[]>();
  readonly attachmentsByParent = new Map<Gid, Gid[]>();
  readonly customFieldsByWorkspace = new Map<Gid, Gid[]>();
  readonly settingsByParent = new Map<Gid, Gid[]>();
  readonly customTypesByWorkspace = new Map<Gid, Gid[]>();
  readonly tagsByWorkspace = new Map<Gid, Gid[]>();
  readonly portfoliosByWorkspace = new Map<Gid, Gid[]>();
  readonly portfolioSettingsByProject = new Map<Gid, Gid[]>();
  readonly goalsByWorkspace = new Map<Gid, Gid[]>();
  readonly statusUpdatesByParent = new Map<Gid, Gid[]>();
  readonly projectStatusesByProject = new Map<Gid, Gid[]>();
  readonly projectTemplatesByTeam = new Map<Gid, Gid[]>();
  /** Key `${workspace}/${customId}`: the task with that generated custom id. */
  readonly taskByCustomId = new Map<string, Gid>();
  readonly budgetsByParent = new Map<Gid, Gid[]>();
  readonly ratesByParent = new Map<Gid, Gid[]>();
  readonly timeEntriesByTask = new Map<Gid, Gid[]>();
  /** A task's estimated time in minutes (what budgets aggregate as `estimate`). */
  readonly estimatedMinutesByTask = new Map<Gid, number>();

  constructor(options: StoreOptions) {
    this.seed = options.seed;
    this.clock = options.now;
    this.nextId = options.gidBase ?? 1_204_000_000_000_001;
    this.events = new EventLog({ now: () => this.clock(), retentionMs: options.eventRetentionMs ?? DAY });
    this.audit = new AuditLog(() => this.clock());
  }

  setClock(now: () => number): void {
    this.clock = now;
  }

  nextGid(kind: ResourceType): Gid {
    const gid = String(this.nextId++);
    this.kinds.set(gid, kind);
    return gid;
  }

  kindOf(gid: Gid): ResourceType | undefined {
    return this.kinds.get(gid);
  }

  /** The records of `ids` found in `from`, in order (ids of deleted records are skipped). */
  list<T>(ids: readonly Gid[] | undefined, from: Map<Gid, T>): T[] {
    const out: T[] = [];
    for (const id of ids ?? []) {
      const item = from.get(id);
      if (item) out.push(item);
    }
    return out;
  }

  /** The task and its ancestors, nearest first. */
  ancestry(task: Task): Task[] {
    const chain: Task[] = [task];
    let parent = task.parent ? this.tasks.get(task.parent) : undefined;
    while (parent && chain.length < 50) {
      chain.push(parent);
      parent = parent.parent ? this.tasks.get(parent.parent) : undefined;
    }
    return chain;
  }
}
