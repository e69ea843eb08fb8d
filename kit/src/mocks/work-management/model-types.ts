/**
 * The record types of the mock's organization (model.ts holds them, indexed, in its store). Records
 * hold gids, never object references.
 */
export type Gid = string;

export type ResourceType =
  | 'workspace'
  | 'user'
  | 'workspace_membership'
  | 'user_task_list'
  | 'team'
  | 'team_membership'
  | 'project'
  | 'membership'
  | 'section'
  | 'task'
  | 'story'
  | 'attachment'
  | 'custom_field'
  | 'enum_option'
  | 'custom_field_setting'
  | 'custom_type'
  | 'tag'
  | 'portfolio'
  | 'project_portfolio_setting'
  | 'goal'
  | 'status_update'
  | 'project_status'
  | 'job'
  | 'organization_export'
  | 'project_template'
  | 'webhook'
  | 'access_request'
  | 'agent'
  | 'budget'
  | 'goal_relationship'
  | 'project_brief'
  | 'rate'
  | 'rule_trigger'
  | 'task_template'
  | 'time_period'
  | 'time_tracking_category'
  | 'time_tracking_entry'
  | 'timesheet_approval_status';

/** The plan of a domain, lowest first (rules/plan-tiers.ts says what each allows). */
export type PlanTier = 'free' | 'premium' | 'business' | 'enterprise' | 'enterprise_plus';
export type AddOn = 'compliance';

export interface Workspace {
  gid: Gid;
  name: string;
  isOrganization: boolean;
  emailDomains: string[];
  /** Not on the wire: decides which exports and audit-log reads the domain may make. */
  tier: PlanTier;
  addOns: AddOn[];
}

export interface User {
  gid: Gid;
  name: string;
  email: string;
  /** The token user of the default bearer token: sees everything, belongs to no member list. */
  isServiceAccount: boolean;
}

export interface WorkspaceMembership {
  gid: Gid;
  user: Gid;
  workspace: Gid;
  /** False for deactivated users: they stay on records but see nothing. */
  isActive: boolean;
  isGuest: boolean;
  isAdmin: boolean;
  createdAt: number;
  userTaskList: Gid;
}

export interface UserTaskList {
  gid: Gid;
  owner: Gid;
  workspace: Gid;
}

export type TeamVisibility = 'secret' | 'request_to_join' | 'public';

export interface Team {
  gid: Gid;
  workspace: Gid;
  name: string;
  visibility: TeamVisibility;
  description: string;
}

export interface TeamMembership {
  gid: Gid;
  team: Gid;
  user: Gid;
  isGuest: boolean;
  /** Limited-access members reach only what they were added to, not the team's projects. */
  isLimitedAccess: boolean;
  isAdmin: boolean;
}

export type PrivacySetting = 'public_to_workspace' | 'private_to_team' | 'private';
export type AccessLevel = 'admin' | 'editor' | 'commenter' | 'viewer';

export interface Project {
  gid: Gid;
  workspace: Gid;
  /** Fixed at creation in an organization; always null in a plain workspace. */
  team: Gid | null;
  name: string;
  notes: string | null;
  privacySetting: PrivacySetting;
  defaultAccessLevel: AccessLevel;
  archived: boolean;
  completed: boolean;
  owner: Gid | null;
  /** A subset of the user members (see rules/projects.ts). */
  followers: Gid[];
  color: string;
  createdAt: number;
  modifiedAt: number;
  dueOn: string | null;
  startOn: string | null;
  customType: Gid | null;
  /** Values of the fields its portfolios give it (rules/portfolio-custom-fields.ts). */
  customFieldValues: CustomFieldValue[];
}

/** A project, portfolio or goal membership of a user or of a whole team. */
export interface Membership {
  gid: Gid;
  parent: Gid;
  parentType: 'project' | 'portfolio' | 'goal';
  member: Gid;
  memberType: 'user' | 'team';
  accessLevel: AccessLevel;
}

export interface Section {
  gid: Gid;
  project: Gid;
  name: string;
  createdAt: number;
}

export interface TaskMembership {
  project: Gid;
  section: Gid | null;
}

export type StoredValue =
  | { type: 'text'; text: string }
  | { type: 'number'; number: number }
  | { type: 'enum'; option: Gid }
  | { type: 'multi_enum'; options: Gid[] }
  | { type: 'date'; date: string; dateTime: string | null }
  | { type: 'people'; users: Gid[] }
  | { type: 'reference'; refs: Gid[] };

export interface CustomFieldValue {
  field: Gid;
  value: StoredValue;
}

export interface Task {
  gid: Gid;
  workspace: Gid;
  name: string;
  resourceSubtype: 'default_task' | 'milestone' | 'approval';
  /** null: the text is derived from the seed and the gid when read (keeps 100k tasks small). */
  notes: string | null;
  assignee: Gid | null;
  followers: Gid[];
  memberships: TaskMembership[];
  parent: Gid | null;
  createdAt: number;
  modifiedAt: number;
  completed: boolean;
  completedAt: number | null;
  dueOn: string | null;
  startOn: string | null;
  createdBy: Gid | null;
  customFieldValues: CustomFieldValue[];
  tags: Gid[];
  customType: Gid | null;
  /** The generated custom identifier (`ENG-12`), unique in its workspace; null: none. */
  customId: string | null;
}

export interface Story {
  gid: Gid;
  target: Gid;
  type: 'comment' | 'system';
  resourceSubtype: string;
  /** null: derived from the seed (comments) or fixed wording (system stories). */
  text: string | null;
  createdBy: Gid | null;
  createdAt: number;
  isEdited: boolean;
  isPinned: boolean;
  source: 'web' | 'email' | 'mobile' | 'api' | 'unknown';
}

export type AttachmentKind = 'pdf' | 'docx' | 'pptx' | 'txt';

export interface Attachment {
  gid: Gid;
  parent: Gid;
  parentType: 'task' | 'project';
  name: string;
  /** `asana` files are generated on download; other hosts are links with no download_url. */
  host: 'asana' | 'gdrive' | 'dropbox' | 'box' | 'onedrive' | 'external';
  kind: AttachmentKind | null;
  createdAt: number;
  createdBy: Gid | null;
  /** Filled the first time the bytes are built (documents are made lazily). */
  size: number | null;
}

export type CustomFieldType = 'text' | 'number' | 'enum' | 'multi_enum' | 'date' | 'people' | 'reference';

export interface CustomField {
  gid: Gid;
  workspace: Gid;
  name: string;
  type: CustomFieldType;
  description: string;
  precision: number;
  enumOptions: Gid[];
  inputRestrictions: string[];
  createdBy: Gid | null;
  privacySetting: 'public_with_guests' | 'public' | 'private';
}

export interface EnumOption {
  gid: Gid;
  field: Gid;
  name: string;
  enabled: boolean;
  color: string;
}

export interface CustomFieldSetting {
  gid: Gid;
  field: Gid;
  parent: Gid;
  parentType: 'project' | 'portfolio' | 'user_task_list';
  isImportant: boolean;
}

export interface CustomType {
  gid: Gid;
  workspace: Gid;
  name: string;
}

export interface Tag {
  gid: Gid;
  workspace: Gid;
  name: string;
  color: string;
  createdAt: number;
}

export interface Portfolio {
  gid: Gid;
  workspace: Gid;
  name: string;
  owner: Gid;
  /** Projects or portfolios, at most 1500 (rules/projects.ts). */
  items: Gid[];
  privacySetting: 'public_to_domain' | 'members_only';
  color: string;
  createdAt: number;
  archived: boolean;
}

export interface ProjectPortfolioSetting {
  gid: Gid;
  project: Gid;
  portfolio: Gid;
  /** When true, the portfolio's members gain access to the project (§6). */
  isAccessControlInherited: boolean;
}

export interface Goal {
  gid: Gid;
  workspace: Gid;
  team: Gid | null;
  name: string;
  owner: Gid | null;
  followers: Gid[];
  isWorkspaceLevel: boolean;
  privacySetting: 'public_to_workspace' | 'members_only';
  createdAt: number;
}

export interface StatusUpdate {
  gid: Gid;
  parent: Gid;
  parentType: 'project' | 'portfolio' | 'goal';
  statusType: string;
  title: string;
  text: string;
  author: Gid | null;
  createdAt: number;
}

export interface ProjectStatus {
  gid: Gid;
  project: Gid;
  color: 'green' | 'yellow' | 'red' | 'blue';
  title: string;
  text: string;
  author: Gid | null;
  createdAt: number;
}

/** What a new project gets from a template: sections of tasks, dates relative to a date variable. */
export interface TemplateTask {
  name: string;
  /** Days after the template's first requested date (its start date); null: no due date. */
  dueOffsetDays: number | null;
  /** The requested role whose user is assigned; null: unassigned. */
  role: string | null;
}

export interface ProjectTemplate {
  gid: Gid;
  workspace: Gid;
  /** A template belongs to one team, fixed (the API cannot change it). */
  team: Gid;
  name: string;
  description: string;
  owner: Gid | null;
  public: boolean;
  color: string;
  /** Date variables a caller fills when instantiating; the first is the start date. */
  requestedDates: Array<{ gid: string; name: string; description: string }>;
  requestedRoles: Array<{ gid: string; name: string }>;
  sections: Array<{ name: string; tasks: TemplateTask[] }>;
}

export interface Notification {
  to: Gid;
  about: Gid;
  kind: 'status_update' | 'project_status';
  at: number;
}

/** A user's request for access to a project or portfolio, sent to its owner for approval. */
export interface AccessRequest {
  gid: Gid;
  workspace: Gid;
  target: Gid;
  requester: Gid;
  /** The owner of the target when the request was made: the one who approves it. */
  approver: Gid | null;
  message: string;
  approvalStatus: 'pending' | 'approved' | 'rejected';
  createdAt: number;
}

/** A software agent: built in, provided by an app, or system-defined. */
export interface Agent {
  gid: Gid;
  workspace: Gid;
  name: string;
  description: string;
  agentType: 'built_in' | 'app' | 'system';
}

/** Links a goal to a supporting goal, project, task or portfolio. */
export interface GoalRelationship {
  gid: Gid;
  supportedGoal: Gid;
  supportingResource: Gid;
  resourceSubtype: 'subgoal' | 'supporting_work';
  contributionWeight: number;
}

/** A rich-text document describing a project (a preview API). */
export interface ProjectBrief {
  gid: Gid;
  project: Gid;
  title: string;
  text: string;
}

/** The rate (per hour, in a currency) of a resource (a user) for a parent object (a project). */
export interface Rate {
  gid: Gid;
  parent: Gid;
  resource: Gid;
  rate: number;
  currencyCode: string;
  createdBy: Gid | null;
}

/** A task template, contained within one project. */
export interface TaskTemplate {
  gid: Gid;
  project: Gid;
  name: string;
  /** What a task made from it gets. */
  template: { name: string; description: string };
  createdBy: Gid | null;
  createdAt: number;
}

/** A domain-scoped date range usable on goals (`FY`, `H1`, `Q1`…), possibly inside a parent period. */
export interface TimePeriod {
  gid: Gid;
  workspace: Gid;
  period: 'FY' | 'H1' | 'H2' | 'Q1' | 'Q2' | 'Q3' | 'Q4';
  displayName: string;
  startOn: string;
  endOn: string;
  parent: Gid | null;
}

/** A workspace-scoped label for time tracking entries, managed by admins. */
export interface TimeTrackingCategory {
  gid: Gid;
  workspace: Gid;
  name: string;
  color: string;
  isArchived: boolean;
}

/** Time recorded on a task (actual time), attributable to one of its projects. */
export interface TimeTrackingEntry {
  gid: Gid;
  task: Gid;
  attributableTo: Gid | null;
  durationMinutes: number;
  enteredOn: string;
  billableStatus: 'billable' | 'non_billable';
  category: Gid | null;
  description: string;
  createdBy: Gid;
  createdAt: number;
}

/** The approval state of a user's timesheet for a date range. */
export interface TimesheetApprovalStatus {
  gid: Gid;
  workspace: Gid;
  user: Gid;
  startDate: string;
  endDate: string;
  approvalStatus: 'draft' | 'submitted' | 'approved' | 'rejected';
}

export type BudgetType = 'time' | 'cost';

/** A budget for a parent (a project): its type and its user-defined totals, one per type. */
export interface Budget {
  gid: Gid;
  parent: Gid;
  budgetType: BudgetType;
  /** The target of each type, kept independently: switching type keeps both. */
  totals: Record<BudgetType, number | null>;
  /** Which logged time `actual` counts. */
  actualBillableStatusFilter: 'billable' | 'non_billable' | 'any';
}

/** A rule's incoming-web-request trigger: running it applies the rule's action to a task of its project. */
export interface RuleTrigger {
  gid: Gid;
  workspace: Gid;
  project: Gid;
  name: string;
  action: { kind: 'complete_task' } | { kind: 'add_comment'; text: string };
}
