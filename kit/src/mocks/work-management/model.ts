/**
 * The in-memory organization the mock serves: record types, indexes by gid and by parent, and
 * the stores that create and change records. The stores record events (see rules/events.ts) once
 * recording is on, so the generator, the public write endpoints, the `/_admin` mutations and tests
 * all change the organization through one path and the events stream always tells the truth.
 *
 * Records hold gids, never object references: the indexes are the only place relations resolve,
 * which keeps 100,000 tasks cheap (no cycles, arrays of strings) and deletions simple.
 */
import { CatalogStore } from './store-catalog';
import { EventRecorder } from './store-events';
import { StoreIndexes, type StoreOptions } from './store-indexes';
import { PeopleStore } from './store-people';
import { ProjectStore } from './store-projects';
import { TaskStore } from './store-tasks';
import { TrackingStore } from './store-tracking';

export type {
  Gid,
  ResourceType,
  PlanTier,
  AddOn,
  Workspace,
  User,
  WorkspaceMembership,
  UserTaskList,
  TeamVisibility,
  Team,
  TeamMembership,
  PrivacySetting,
  AccessLevel,
  Project,
  Membership,
  Section,
  TaskMembership,
  StoredValue,
  CustomFieldValue,
  Task,
  Story,
  AttachmentKind,
  Attachment,
  CustomFieldType,
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
  TemplateTask,
  ProjectTemplate,
  Notification,
  AccessRequest,
  Agent,
  Budget,
  BudgetType,
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
export { isoDate, removeItem, type StoreOptions } from './store-indexes';
export type { StoreIndexes, EventRecorder, PeopleStore, ProjectStore, TaskStore, CatalogStore, TrackingStore };

/**
 * The store: the shared indexes (maps by gid, per-parent indexes, clock, gids, events, audit log)
 * and the event recorder, with one store per resource family working on them. Read through
 * `indexes`; change through `people`, `projects`, `tasks`, `catalog` and `tracking`.
 */
export class WorkManagementStore {
  readonly indexes: StoreIndexes;
  readonly recorder: EventRecorder;
  readonly people: PeopleStore;
  readonly projects: ProjectStore;
  readonly tasks: TaskStore;
  readonly catalog: CatalogStore;
  readonly tracking: TrackingStore;

  constructor(options: StoreOptions) {
    this.indexes = new StoreIndexes(options);
    this.recorder = new EventRecorder(this.indexes);
    this.people = new PeopleStore(this.indexes, this.recorder);
    this.projects = new ProjectStore(this.indexes, this.recorder);
    this.tasks = new TaskStore(this.indexes, this.recorder);
    this.catalog = new CatalogStore(this.indexes, this.recorder, this.projects);
    this.tracking = new TrackingStore(this.indexes);
  }
}
