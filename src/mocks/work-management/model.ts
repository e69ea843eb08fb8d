/**
 * The in-memory organization the mock serves: record types, indexes by gid and by parent, and
 * the builders that create records. Builders record events (see rules/events.ts) once recording
 * is on, so the generator, the public write endpoints, the `/_admin` mutations and tests all
 * change the organization through one path and the events stream always tells the truth.
 *
 * Records hold gids, never object references: the store is the only place relations resolve,
 * which keeps 100,000 tasks cheap (no cycles, arrays of strings) and deletions simple.
 */
import { AuditLog } from './rules/audit-log';
import { EventLog, type EventAction, type EventChange, type EventRef } from './rules/events';
import { paragraphsFor } from './names';
import type { Gid, ResourceType, PlanTier, AddOn, Workspace, User, WorkspaceMembership, UserTaskList, TeamVisibility, Team, TeamMembership, PrivacySetting, AccessLevel, Project, Membership, Section, TaskMembership, StoredValue, CustomFieldValue, Task, Story, AttachmentKind, Attachment, CustomFieldType, CustomField, EnumOption, CustomFieldSetting, CustomType, Tag, Portfolio, ProjectPortfolioSetting, Goal, StatusUpdate, ProjectStatus, TemplateTask, ProjectTemplate, Notification } from './model-types';

export type { Gid, ResourceType, PlanTier, AddOn, Workspace, User, WorkspaceMembership, UserTaskList, TeamVisibility, Team, TeamMembership, PrivacySetting, AccessLevel, Project, Membership, Section, TaskMembership, StoredValue, CustomFieldValue, Task, Story, AttachmentKind, Attachment, CustomFieldType, CustomField, EnumOption, CustomFieldSetting, CustomType, Tag, Portfolio, ProjectPortfolioSetting, Goal, StatusUpdate, ProjectStatus, TemplateTask, ProjectTemplate, Notification } from './model-types';

const DAY = 86_400_000;

/** Removes one occurrence of `item`; returns whether it was there. */
export function removeItem<T>(list: T[], item: T): boolean {
  const i = list.indexOf(item);
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}

function push<K, V>(index: Map<K, V[]>, key: K, value: V): void {
  const list = index.get(key);
  if (list) list.push(value);
  else index.set(key, [value]);
}

function pull<K, V>(index: Map<K, V[]>, key: K, value: V): void {
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

export class WorkManagementStore {
  readonly seed: string;
  private clock: () => number;
  /** The store's clock (replaceable with setClock, e.g. to move time in tests). */
  readonly now = (): number => this.clock();
  readonly events: EventLog;
  /** The audit log: the security-relevant share of recorded changes, kept for good, never lossy. */
  readonly audit: AuditLog;
  /** Events are recorded only once the initial organization is built. */
  recording = false;
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

  /** Runs `build` with event recording off (initial data is not news). */
  silently<T>(build: () => T): T {
    const was = this.recording;
    this.recording = false;
    try {
      return build();
    } finally {
      this.recording = was;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Lookups
  // ---------------------------------------------------------------------------------------------

  list<T>(ids: readonly Gid[] | undefined, from: Map<Gid, T>): T[] {
    const out: T[] = [];
    for (const id of ids ?? []) {
      const item = from.get(id);
      if (item) out.push(item);
    }
    return out;
  }

  workspaceMembership(user: Gid, workspace: Gid): WorkspaceMembership | undefined {
    for (const id of this.workspaceMembershipsByUser.get(user) ?? []) {
      const m = this.workspaceMemberships.get(id);
      if (m && m.workspace === workspace) return m;
    }
    return undefined;
  }

  projectMemberships(project: Gid): Membership[] {
    return this.list(this.membershipsByParent.get(project), this.memberships);
  }

  projectUserMembers(project: Gid): Gid[] {
    return this.projectMemberships(project)
      .filter((m) => m.memberType === 'user')
      .map((m) => m.member);
  }

  findMembership(parent: Gid, member: Gid): Membership | undefined {
    return this.projectMemberships(parent).find((m) => m.member === member);
  }

  /** Projects of a task: its own memberships, in order. */
  taskProjects(task: Task): Gid[] {
    return task.memberships.map((m) => m.project);
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

  taskNotes(task: Task): string {
    return task.notes ?? paragraphsFor(this.seed, task.gid, 2).join('\n\n');
  }

  storyText(story: Story): string {
    if (story.text !== null) return story.text;
    return paragraphsFor(this.seed, story.gid, 1)[0] ?? '';
  }

  userTaskListOf(user: Gid, workspace: Gid): UserTaskList | undefined {
    const m = this.workspaceMembership(user, workspace);
    return m ? this.userTaskLists.get(m.userTaskList) : undefined;
  }

  // ---------------------------------------------------------------------------------------------
  // Builders (record events when `recording` is on)
  // ---------------------------------------------------------------------------------------------

  /** An organization is on the top tier unless told otherwise; a plain workspace is free. */
  addWorkspace(input: { name: string; isOrganization: boolean; emailDomains?: string[]; tier?: PlanTier; addOns?: AddOn[] }): Workspace {
    const ws: Workspace = {
      gid: this.nextGid('workspace'),
      name: input.name,
      isOrganization: input.isOrganization,
      emailDomains: input.emailDomains ?? [],
      tier: input.tier ?? (input.isOrganization ? 'enterprise_plus' : 'free'),
      addOns: [...(input.addOns ?? [])],
    };
    this.workspaces.set(ws.gid, ws);
    return ws;
  }

  addUser(input: { name: string; email: string; isServiceAccount?: boolean }): User {
    const user: User = { gid: this.nextGid('user'), name: input.name, email: input.email, isServiceAccount: input.isServiceAccount ?? false };
    this.users.set(user.gid, user);
    this.usersByEmail.set(user.email.toLowerCase(), user.gid);
    return user;
  }

  addWorkspaceMembership(input: { user: Gid; workspace: Gid; isActive?: boolean; isGuest?: boolean; isAdmin?: boolean; createdAt?: number }): WorkspaceMembership {
    const existing = this.workspaceMembership(input.user, input.workspace);
    if (existing) return existing;
    const list: UserTaskList = { gid: this.nextGid('user_task_list'), owner: input.user, workspace: input.workspace };
    this.userTaskLists.set(list.gid, list);
    const m: WorkspaceMembership = {
      gid: this.nextGid('workspace_membership'),
      user: input.user,
      workspace: input.workspace,
      isActive: input.isActive ?? true,
      isGuest: input.isGuest ?? false,
      isAdmin: input.isAdmin ?? false,
      createdAt: input.createdAt ?? this.now(),
      userTaskList: list.gid,
    };
    this.workspaceMemberships.set(m.gid, m);
    push(this.workspaceMembershipsByWorkspace, m.workspace, m.gid);
    push(this.workspaceMembershipsByUser, m.user, m.gid);
    this.record('added', this.ref('workspace_membership', m.gid), this.ref('workspace', m.workspace), [m.workspace]);
    return m;
  }

  setWorkspaceMembershipActive(membership: WorkspaceMembership, isActive: boolean): void {
    if (membership.isActive === isActive) return;
    membership.isActive = isActive;
    this.record('changed', this.ref('workspace_membership', membership.gid), null, [membership.workspace], {
      field: 'is_active',
      action: 'changed',
      new_value: isActive,
    });
  }

  addTeam(input: { workspace: Gid; name: string; visibility?: TeamVisibility; description?: string }): Team {
    const team: Team = { gid: this.nextGid('team'), workspace: input.workspace, name: input.name, visibility: input.visibility ?? 'public', description: input.description ?? '' };
    this.teams.set(team.gid, team);
    push(this.teamsByWorkspace, team.workspace, team.gid);
    this.record('added', this.ref('team', team.gid), this.ref('workspace', team.workspace), [team.workspace]);
    return team;
  }

  addTeamMembership(input: { team: Gid; user: Gid; isGuest?: boolean; isLimitedAccess?: boolean; isAdmin?: boolean }): TeamMembership {
    const existing = this.list(this.teamMembershipsByTeam.get(input.team), this.teamMemberships).find((m) => m.user === input.user);
    if (existing) return existing;
    const m: TeamMembership = {
      gid: this.nextGid('team_membership'),
      team: input.team,
      user: input.user,
      isGuest: input.isGuest ?? false,
      isLimitedAccess: input.isLimitedAccess ?? false,
      isAdmin: input.isAdmin ?? false,
    };
    this.teamMemberships.set(m.gid, m);
    push(this.teamMembershipsByTeam, m.team, m.gid);
    push(this.teamMembershipsByUser, m.user, m.gid);
    const team = this.teams.get(m.team);
    this.record('added', this.ref('team_membership', m.gid), this.ref('team', m.team), [m.team, team?.workspace ?? '']);
    return m;
  }

  removeTeamMembership(m: TeamMembership): void {
    this.teamMemberships.delete(m.gid);
    pull(this.teamMembershipsByTeam, m.team, m.gid);
    pull(this.teamMembershipsByUser, m.user, m.gid);
    const team = this.teams.get(m.team);
    this.record('removed', this.ref('team_membership', m.gid, `${this.users.get(m.user)?.name ?? ''}`), this.ref('team', m.team), [m.team, team?.workspace ?? '']);
  }

  addProject(input: {
    workspace: Gid;
    team: Gid | null;
    name: string;
    privacySetting?: PrivacySetting;
    defaultAccessLevel?: AccessLevel;
    archived?: boolean;
    owner?: Gid | null;
    notes?: string | null;
    color?: string;
    createdAt?: number;
    customType?: Gid | null;
  }): Project {
    const at = input.createdAt ?? this.now();
    const project: Project = {
      gid: this.nextGid('project'),
      workspace: input.workspace,
      team: input.team,
      name: input.name,
      notes: input.notes ?? null,
      privacySetting: input.privacySetting ?? 'public_to_workspace',
      defaultAccessLevel: input.defaultAccessLevel ?? 'editor',
      archived: input.archived ?? false,
      completed: false,
      owner: input.owner ?? null,
      followers: [],
      color: input.color ?? 'light-green',
      createdAt: at,
      modifiedAt: at,
      dueOn: null,
      startOn: null,
      customType: input.customType ?? null,
      customFieldValues: [],
    };
    this.projects.set(project.gid, project);
    push(this.projectsByWorkspace, project.workspace, project.gid);
    if (project.team) push(this.projectsByTeam, project.team, project.gid);
    this.tasksByProject.set(project.gid, []);
    this.record('added', this.ref('project', project.gid), project.team ? this.ref('team', project.team) : this.ref('workspace', project.workspace), [project.gid, project.workspace, ...(project.team ? [project.team] : [])]);
    if (project.owner) this.addMembership({ parent: project.gid, member: project.owner, accessLevel: 'admin' });
    return project;
  }

  changeProject(project: Project, field: string, apply: () => void, newValue: unknown): void {
    apply();
    project.modifiedAt = this.now();
    this.record('changed', this.ref('project', project.gid), null, [project.gid, project.workspace, ...(project.team ? [project.team] : [])], { field, action: 'changed', new_value: newValue });
  }

  /** Adds (or returns the existing) membership of a user or team in a project, portfolio or goal. */
  addMembership(input: { parent: Gid; member: Gid; accessLevel?: AccessLevel }): Membership {
    const existing = this.findMembership(input.parent, input.member);
    if (existing) return existing;
    const parentType = this.kindOf(input.parent);
    if (parentType !== 'project' && parentType !== 'portfolio' && parentType !== 'goal') throw new Error(`cannot add a member to ${parentType}`);
    const memberType = this.kindOf(input.member);
    if (memberType !== 'user' && memberType !== 'team') throw new Error(`a member is a user or a team, not ${memberType}`);
    const m: Membership = {
      gid: this.nextGid('membership'),
      parent: input.parent,
      parentType,
      member: input.member,
      memberType,
      accessLevel: input.accessLevel ?? 'editor',
    };
    this.memberships.set(m.gid, m);
    push(this.membershipsByParent, m.parent, m.gid);
    push(this.membershipsByMember, m.member, m.gid);
    this.record('added', { gid: m.gid, resource_type: 'membership', resource_subtype: `${parentType}_membership` }, this.ref(parentType, m.parent), this.parentScopes(m.parent));
    return m;
  }

  /** Removes a membership; a user leaving a project also stops following it (followers ⊂ members). */
  removeMembership(m: Membership): void {
    this.memberships.delete(m.gid);
    pull(this.membershipsByParent, m.parent, m.gid);
    pull(this.membershipsByMember, m.member, m.gid);
    if (m.parentType === 'project' && m.memberType === 'user') {
      const project = this.projects.get(m.parent);
      if (project) removeItem(project.followers, m.member);
    }
    this.record('removed', { gid: m.gid, resource_type: 'membership', resource_subtype: `${m.parentType}_membership` }, this.ref(m.parentType, m.parent), this.parentScopes(m.parent));
  }

  addSection(input: { project: Gid; name: string; createdAt?: number }): Section {
    const section: Section = { gid: this.nextGid('section'), project: input.project, name: input.name, createdAt: input.createdAt ?? this.now() };
    this.sections.set(section.gid, section);
    push(this.sectionsByProject, section.project, section.gid);
    this.tasksBySection.set(section.gid, []);
    this.record('added', this.ref('section', section.gid), this.ref('project', section.project), this.parentScopes(section.project));
    return section;
  }

  addTask(input: {
    workspace: Gid;
    name: string;
    memberships?: Array<{ project: Gid; section?: Gid | null }>;
    parent?: Gid | null;
    assignee?: Gid | null;
    followers?: Gid[];
    createdBy?: Gid | null;
    notes?: string | null;
    createdAt?: number;
    modifiedAt?: number;
    completed?: boolean;
    completedAt?: number | null;
    dueOn?: string | null;
    startOn?: string | null;
    resourceSubtype?: Task['resourceSubtype'];
    customType?: Gid | null;
    tags?: Gid[];
  }): Task {
    const at = input.createdAt ?? this.now();
    const task: Task = {
      gid: this.nextGid('task'),
      workspace: input.workspace,
      name: input.name,
      resourceSubtype: input.resourceSubtype ?? 'default_task',
      notes: input.notes ?? null,
      assignee: input.assignee ?? null,
      followers: [...new Set(input.followers ?? [])],
      memberships: [],
      parent: input.parent ?? null,
      createdAt: at,
      modifiedAt: input.modifiedAt ?? at,
      completed: input.completed ?? false,
      completedAt: input.completedAt ?? null,
      dueOn: input.dueOn ?? null,
      startOn: input.startOn ?? null,
      createdBy: input.createdBy ?? null,
      customFieldValues: [],
      tags: [],
      customType: input.customType ?? null,
    };
    this.tasks.set(task.gid, task);
    push(this.tasksByWorkspace, task.workspace, task.gid);
    if (task.assignee) push(this.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    if (task.parent) push(this.subtasksByTask, task.parent, task.gid);
    for (const tag of input.tags ?? []) this.addTaskTag(task, tag);
    const memberships = input.memberships ?? [];
    for (const m of memberships) this.linkTaskToProject(task, m.project, m.section ?? null);
    if (!this.recording) return task;
    if (memberships.length === 0) {
      const parent = task.parent ? this.tasks.get(task.parent) : undefined;
      this.record('added', this.taskRef(task), parent ? this.taskRef(parent) : null, this.taskScopes(task));
    } else {
      for (const m of task.memberships) this.record('added', this.taskRef(task), this.ref('project', m.project), this.taskScopes(task));
    }
    return task;
  }

  addTaskTag(task: Task, tag: Gid): void {
    if (task.tags.includes(tag)) return;
    task.tags.push(tag);
    push(this.tasksByTag, tag, task.gid);
  }

  /** Puts a task in a project (at the end, or in a section); moving does not touch modified_at. */
  addTaskToProject(task: Task, project: Gid, section: Gid | null = null): void {
    const existing = task.memberships.find((m) => m.project === project);
    if (existing) {
      if (section && existing.section !== section) {
        if (existing.section) pull(this.tasksBySection, existing.section, task.gid);
        existing.section = section;
        push(this.tasksBySection, section, task.gid);
        this.record('changed', this.taskRef(task), null, this.taskScopes(task), { field: 'memberships', action: 'changed', new_value: { project: { gid: project }, section: { gid: section } } });
      }
      return;
    }
    this.linkTaskToProject(task, project, section);
    this.record('added', this.taskRef(task), this.ref('project', project), this.taskScopes(task));
  }

  removeTaskFromProject(task: Task, project: Gid): boolean {
    const m = task.memberships.find((x) => x.project === project);
    if (!m) return false;
    const scopes = this.taskScopes(task);
    task.memberships = task.memberships.filter((x) => x !== m);
    pull(this.tasksByProject, project, task.gid);
    if (m.section) pull(this.tasksBySection, m.section, task.gid);
    this.record('removed', this.taskRef(task), this.ref('project', project), scopes);
    return true;
  }

  private linkTaskToProject(task: Task, project: Gid, section: Gid | null): void {
    const sec = section ?? this.sectionsByProject.get(project)?.[0] ?? null;
    task.memberships.push({ project, section: sec });
    push(this.tasksByProject, project, task.gid);
    if (sec) push(this.tasksBySection, sec, task.gid);
  }

  setTaskAssignee(task: Task, assignee: Gid | null): void {
    if (task.assignee === assignee) return;
    if (task.assignee) pull(this.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    task.assignee = assignee;
    if (assignee) push(this.tasksByAssignee, `${assignee}/${task.workspace}`, task.gid);
    this.touchTask(task, { field: 'assignee', action: 'changed', new_value: assignee ? this.ref('user', assignee) : null });
  }

  addTaskFollowers(task: Task, users: Gid[]): void {
    for (const user of users) {
      if (task.followers.includes(user)) continue;
      task.followers.push(user);
      this.touchTask(task, { field: 'followers', action: 'added', added_value: this.ref('user', user) });
    }
  }

  removeTaskFollowers(task: Task, users: Gid[]): void {
    for (const user of users) {
      if (!removeItem(task.followers, user)) continue;
      this.touchTask(task, { field: 'followers', action: 'removed', removed_value: this.ref('user', user) });
    }
  }

  /** A property change: bumps modified_at and records a `changed` event. */
  touchTask(task: Task, change: EventChange): void {
    task.modifiedAt = Math.max(this.now(), task.modifiedAt);
    this.record('changed', this.taskRef(task), null, this.taskScopes(task), change);
  }

  /** Deletes a task with its subtasks, stories and attachments. */
  deleteTask(task: Task): void {
    for (const sub of this.list(this.subtasksByTask.get(task.gid), this.tasks)) this.deleteTask(sub);
    const scopes = this.taskScopes(task);
    for (const m of task.memberships) {
      pull(this.tasksByProject, m.project, task.gid);
      if (m.section) pull(this.tasksBySection, m.section, task.gid);
    }
    pull(this.tasksByWorkspace, task.workspace, task.gid);
    if (task.assignee) pull(this.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    if (task.parent) pull(this.subtasksByTask, task.parent, task.gid);
    for (const tag of task.tags) pull(this.tasksByTag, tag, task.gid);
    for (const id of this.storiesByTask.get(task.gid) ?? []) this.stories.delete(id);
    for (const id of this.attachmentsByParent.get(task.gid) ?? []) this.attachments.delete(id);
    this.storiesByTask.delete(task.gid);
    this.attachmentsByParent.delete(task.gid);
    this.subtasksByTask.delete(task.gid);
    this.tasks.delete(task.gid);
    this.record('deleted', this.taskRef(task), null, scopes);
  }

  addStory(input: {
    target: Gid;
    type?: Story['type'];
    resourceSubtype?: string;
    text?: string | null;
    createdBy?: Gid | null;
    createdAt?: number;
    source?: Story['source'];
    isPinned?: boolean;
  }): Story {
    const story: Story = {
      gid: this.nextGid('story'),
      target: input.target,
      type: input.type ?? 'comment',
      resourceSubtype: input.resourceSubtype ?? ((input.type ?? 'comment') === 'comment' ? 'comment_added' : 'added_to_project'),
      text: input.text ?? null,
      createdBy: input.createdBy ?? null,
      createdAt: input.createdAt ?? this.now(),
      isEdited: false,
      isPinned: input.isPinned ?? false,
      source: input.source ?? 'web',
    };
    this.stories.set(story.gid, story);
    push(this.storiesByTask, story.target, story.gid);
    const task = this.tasks.get(story.target);
    if (task && this.recording) {
      task.modifiedAt = Math.max(this.now(), task.modifiedAt);
      this.record('added', this.ref('story', story.gid, undefined, story.resourceSubtype), this.taskRef(task), this.taskScopes(task), undefined, story.createdBy);
    }
    return story;
  }

  /** Comment edits leave the task's modified_at alone (as the real service does) but are recorded. */
  editStory(story: Story, text: string): void {
    story.text = text;
    story.isEdited = true;
    const task = this.tasks.get(story.target);
    this.record('changed', this.ref('story', story.gid, undefined, story.resourceSubtype), task ? this.taskRef(task) : null, task ? this.taskScopes(task) : [story.target], { field: 'text', action: 'changed', new_value: text });
  }

  deleteStory(story: Story): void {
    this.stories.delete(story.gid);
    pull(this.storiesByTask, story.target, story.gid);
    const task = this.tasks.get(story.target);
    if (task) task.modifiedAt = Math.max(this.now(), task.modifiedAt);
    this.record('deleted', this.ref('story', story.gid, undefined, story.resourceSubtype), task ? this.taskRef(task) : null, task ? this.taskScopes(task) : [story.target]);
  }

  addAttachment(input: { parent: Gid; name: string; host?: Attachment['host']; kind?: AttachmentKind | null; createdAt?: number; createdBy?: Gid | null }): Attachment {
    const parentType = this.kindOf(input.parent) === 'project' ? 'project' : 'task';
    const a: Attachment = {
      gid: this.nextGid('attachment'),
      parent: input.parent,
      parentType,
      name: input.name,
      host: input.host ?? 'asana',
      kind: input.kind ?? null,
      createdAt: input.createdAt ?? this.now(),
      createdBy: input.createdBy ?? null,
      size: null,
    };
    this.attachments.set(a.gid, a);
    push(this.attachmentsByParent, a.parent, a.gid);
    if (this.recording) {
      const task = this.tasks.get(a.parent);
      if (task) task.modifiedAt = Math.max(this.now(), task.modifiedAt);
      this.record('added', this.ref('attachment', a.gid, a.name), task ? this.taskRef(task) : this.ref('project', a.parent), task ? this.taskScopes(task) : this.parentScopes(a.parent));
    }
    return a;
  }

  deleteAttachment(a: Attachment): void {
    this.attachments.delete(a.gid);
    pull(this.attachmentsByParent, a.parent, a.gid);
    const task = this.tasks.get(a.parent);
    if (task) task.modifiedAt = Math.max(this.now(), task.modifiedAt);
    this.record('deleted', this.ref('attachment', a.gid, a.name), task ? this.taskRef(task) : this.ref('project', a.parent), task ? this.taskScopes(task) : this.parentScopes(a.parent));
  }

  addCustomField(input: {
    workspace: Gid;
    name: string;
    type: CustomFieldType;
    precision?: number;
    description?: string;
    inputRestrictions?: string[];
    createdBy?: Gid | null;
    enumOptions?: Array<{ name: string; enabled?: boolean; color?: string }>;
  }): CustomField {
    const field: CustomField = {
      gid: this.nextGid('custom_field'),
      workspace: input.workspace,
      name: input.name,
      type: input.type,
      description: input.description ?? '',
      precision: input.type === 'number' ? (input.precision ?? 0) : 0,
      enumOptions: [],
      inputRestrictions: input.type === 'reference' ? (input.inputRestrictions ?? ['task']) : [],
      createdBy: input.createdBy ?? null,
      privacySetting: 'public_with_guests',
    };
    this.customFields.set(field.gid, field);
    push(this.customFieldsByWorkspace, field.workspace, field.gid);
    for (const o of input.enumOptions ?? []) this.addEnumOption({ field: field.gid, ...o });
    return field;
  }

  addEnumOption(input: { field: Gid; name: string; enabled?: boolean; color?: string }): EnumOption {
    const option: EnumOption = { gid: this.nextGid('enum_option'), field: input.field, name: input.name, enabled: input.enabled ?? true, color: input.color ?? 'blue' };
    this.enumOptions.set(option.gid, option);
    this.customFields.get(input.field)?.enumOptions.push(option.gid);
    return option;
  }

  addCustomFieldSetting(input: { field: Gid; parent: Gid; isImportant?: boolean }): CustomFieldSetting {
    const existing = this.list(this.settingsByParent.get(input.parent), this.customFieldSettings).find((s) => s.field === input.field);
    if (existing) return existing;
    const kind = this.kindOf(input.parent);
    const parentType = kind === 'portfolio' ? 'portfolio' : kind === 'user_task_list' ? 'user_task_list' : 'project';
    const setting: CustomFieldSetting = { gid: this.nextGid('custom_field_setting'), field: input.field, parent: input.parent, parentType, isImportant: input.isImportant ?? true };
    this.customFieldSettings.set(setting.gid, setting);
    push(this.settingsByParent, setting.parent, setting.gid);
    const project = this.recording && parentType === 'project' ? this.projects.get(setting.parent) : undefined;
    if (project) this.changeProject(project, 'custom_field_settings', () => undefined, { action: 'added', custom_field: this.ref('custom_field', setting.field) });
    return setting;
  }

  removeCustomFieldSetting(setting: CustomFieldSetting): void {
    this.customFieldSettings.delete(setting.gid);
    pull(this.settingsByParent, setting.parent, setting.gid);
    const project = this.projects.get(setting.parent);
    if (project) this.changeProject(project, 'custom_field_settings', () => undefined, { action: 'removed', custom_field: this.ref('custom_field', setting.field) });
  }

  settingsOf(parent: Gid): CustomFieldSetting[] {
    return this.list(this.settingsByParent.get(parent), this.customFieldSettings);
  }

  addCustomType(input: { workspace: Gid; name: string }): CustomType {
    const type: CustomType = { gid: this.nextGid('custom_type'), workspace: input.workspace, name: input.name };
    this.customTypes.set(type.gid, type);
    push(this.customTypesByWorkspace, type.workspace, type.gid);
    return type;
  }

  addTag(input: { workspace: Gid; name: string; color?: string; createdAt?: number }): Tag {
    const tag: Tag = { gid: this.nextGid('tag'), workspace: input.workspace, name: input.name, color: input.color ?? 'dark-blue', createdAt: input.createdAt ?? this.now() };
    this.tags.set(tag.gid, tag);
    push(this.tagsByWorkspace, tag.workspace, tag.gid);
    this.tasksByTag.set(tag.gid, []);
    return tag;
  }

  addPortfolio(input: { workspace: Gid; name: string; owner: Gid; privacySetting?: Portfolio['privacySetting']; color?: string; createdAt?: number }): Portfolio {
    const p: Portfolio = {
      gid: this.nextGid('portfolio'),
      workspace: input.workspace,
      name: input.name,
      owner: input.owner,
      items: [],
      privacySetting: input.privacySetting ?? 'members_only',
      color: input.color ?? 'light-purple',
      createdAt: input.createdAt ?? this.now(),
      archived: false,
    };
    this.portfolios.set(p.gid, p);
    push(this.portfoliosByWorkspace, p.workspace, p.gid);
    this.addMembership({ parent: p.gid, member: p.owner, accessLevel: 'admin' });
    return p;
  }

  addProjectPortfolioSetting(input: { project: Gid; portfolio: Gid; isAccessControlInherited: boolean }): ProjectPortfolioSetting {
    const s: ProjectPortfolioSetting = { gid: this.nextGid('project_portfolio_setting'), ...input };
    this.projectPortfolioSettings.set(s.gid, s);
    push(this.portfolioSettingsByProject, s.project, s.gid);
    return s;
  }

  addGoal(input: { workspace: Gid; name: string; team?: Gid | null; owner?: Gid | null; createdAt?: number }): Goal {
    const goal: Goal = {
      gid: this.nextGid('goal'),
      workspace: input.workspace,
      team: input.team ?? null,
      name: input.name,
      owner: input.owner ?? null,
      followers: input.owner ? [input.owner] : [],
      isWorkspaceLevel: !input.team,
      privacySetting: 'public_to_workspace',
      createdAt: input.createdAt ?? this.now(),
    };
    this.goals.set(goal.gid, goal);
    push(this.goalsByWorkspace, goal.workspace, goal.gid);
    return goal;
  }

  addStatusUpdate(input: Omit<StatusUpdate, 'gid' | 'createdAt' | 'parentType'> & { createdAt?: number }): StatusUpdate {
    const kind = this.kindOf(input.parent);
    if (kind !== 'project' && kind !== 'portfolio' && kind !== 'goal') throw new Error(`status updates belong to projects, portfolios and goals, not ${kind}`);
    const s: StatusUpdate = { ...input, gid: this.nextGid('status_update'), parentType: kind, createdAt: input.createdAt ?? this.now() };
    this.statusUpdates.set(s.gid, s);
    push(this.statusUpdatesByParent, s.parent, s.gid);
    this.record('added', this.ref('status_update', s.gid, s.title), this.ref(kind, s.parent), this.parentScopes(s.parent));
    return s;
  }

  deleteStatusUpdate(s: StatusUpdate): void {
    this.statusUpdates.delete(s.gid);
    pull(this.statusUpdatesByParent, s.parent, s.gid);
    this.record('deleted', this.ref('status_update', s.gid, s.title), this.ref(s.parentType, s.parent), this.parentScopes(s.parent));
  }

  addProjectStatus(input: Omit<ProjectStatus, 'gid' | 'createdAt'> & { createdAt?: number }): ProjectStatus {
    const s: ProjectStatus = { ...input, gid: this.nextGid('project_status'), createdAt: input.createdAt ?? this.now() };
    this.projectStatuses.set(s.gid, s);
    push(this.projectStatusesByProject, s.project, s.gid);
    this.record('added', this.ref('project_status', s.gid, s.title), this.ref('project', s.project), this.parentScopes(s.project));
    return s;
  }

  deleteProjectStatus(s: ProjectStatus): void {
    this.projectStatuses.delete(s.gid);
    pull(this.projectStatusesByProject, s.project, s.gid);
    this.record('deleted', this.ref('project_status', s.gid, s.title), this.ref('project', s.project), this.parentScopes(s.project));
  }

  addProjectTemplate(input: Omit<ProjectTemplate, 'gid' | 'workspace' | 'description' | 'owner' | 'public' | 'color'> & Partial<Pick<ProjectTemplate, 'description' | 'owner' | 'public' | 'color'>>): ProjectTemplate {
    const team = this.teams.get(input.team);
    if (!team) throw new Error(`a project template belongs to a team, not ${input.team}`);
    const t: ProjectTemplate = { description: '', owner: null, public: true, color: 'light-blue', ...input, gid: this.nextGid('project_template'), workspace: team.workspace };
    this.projectTemplates.set(t.gid, t);
    push(this.projectTemplatesByTeam, t.team, t.gid);
    return t;
  }

  // ---------------------------------------------------------------------------------------------
  // Events
  // ---------------------------------------------------------------------------------------------

  /** A compact reference `{gid, resource_type, name}` as events carry them. */
  ref(type: ResourceType, gid: Gid, name?: string, subtype?: string): EventRef {
    const resolved = name ?? this.nameOf(gid);
    return { gid, resource_type: type, ...(resolved !== undefined ? { name: resolved } : {}), ...(subtype ? { resource_subtype: subtype } : {}) };
  }

  taskRef(task: Task): EventRef {
    return { gid: task.gid, resource_type: 'task', name: task.name, resource_subtype: task.resourceSubtype };
  }

  nameOf(gid: Gid): string | undefined {
    return (
      this.users.get(gid)?.name ??
      this.projects.get(gid)?.name ??
      this.teams.get(gid)?.name ??
      this.workspaces.get(gid)?.name ??
      this.tasks.get(gid)?.name ??
      this.portfolios.get(gid)?.name ??
      this.goals.get(gid)?.name ??
      this.customFields.get(gid)?.name ??
      this.sections.get(gid)?.name ??
      this.projectTemplates.get(gid)?.name
    );
  }

  /**
   * Where a task event is visible: the task, its ancestors, every project of any of them (events
   * bubble up from subtasks to the parent's projects) and the workspace.
   */
  taskScopes(task: Task): Gid[] {
    const scopes = new Set<Gid>();
    for (const t of this.ancestry(task)) {
      scopes.add(t.gid);
      for (const m of t.memberships) scopes.add(m.project);
    }
    scopes.add(task.workspace);
    return [...scopes];
  }

  parentScopes(parent: Gid): Gid[] {
    const project = this.projects.get(parent);
    if (project) return [project.gid, project.workspace, ...(project.team ? [project.team] : [])];
    const portfolio = this.portfolios.get(parent);
    if (portfolio) return [portfolio.gid, portfolio.workspace];
    const goal = this.goals.get(parent);
    if (goal) return [goal.gid, goal.workspace];
    return [parent];
  }

  record(action: EventAction, resource: EventRef, parent: EventRef | null, scopes: Gid[], change?: EventChange, user: Gid | null = null): void {
    if (!this.recording) return;
    this.audit.observe(this, { action, resource, parent, change, user, scopes });
    this.events.append({
      action,
      resource,
      parent,
      change,
      user: user ? this.ref('user', user) : null,
      scopes: scopes.filter(Boolean),
    });
  }
}
