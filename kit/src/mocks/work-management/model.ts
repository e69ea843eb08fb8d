/**
 * The in-memory organization the mock serves: record types, indexes by gid and by parent, and
 * the builders that create records. Builders record events (see rules/events.ts) once recording
 * is on, so the generator, the public write endpoints, the `/_admin` mutations and tests all
 * change the organization through one path and the events stream always tells the truth.
 *
 * Records hold gids, never object references: the store is the only place relations resolve,
 * which keeps 100,000 tasks cheap (no cycles, arrays of strings) and deletions simple.
 */
import { CatalogStore } from './store-catalog';

export type { Gid, ResourceType, PlanTier, AddOn, Workspace, User, WorkspaceMembership, UserTaskList, TeamVisibility, Team, TeamMembership, PrivacySetting, AccessLevel, Project, Membership, Section, TaskMembership, StoredValue, CustomFieldValue, Task, Story, AttachmentKind, Attachment, CustomFieldType, CustomField, EnumOption, CustomFieldSetting, CustomType, Tag, Portfolio, ProjectPortfolioSetting, Goal, StatusUpdate, ProjectStatus, TemplateTask, ProjectTemplate, Notification } from './model-types';
export { isoDate, removeItem, type StoreOptions } from './store-base';

/**
 * The store: the base (maps, indexes, lookups, events) with each family's builders layered on it,
 * people, then projects, then tasks, then the catalog (custom fields, portfolios, goals…).
 */
export class WorkManagementStore extends CatalogStore {}
