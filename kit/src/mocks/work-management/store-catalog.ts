/** The catalog store: custom fields, enum options and settings, custom types, tags, portfolios, goals, status updates and project templates. */
import type {
  Gid,
  Project,
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
  ProjectTemplate,
} from './model-types';
import type { EventRecorder } from './store-events';
import { type StoreIndexes, pull, push } from './store-indexes';
import type { ProjectStore } from './store-projects';

/** What a new project template may leave out. */
type TemplateDefaults = 'description' | 'owner' | 'public' | 'color';

export class CatalogStore {
  /** `projects` records the project changes that settings make, and gives portfolios their owner's membership. */
  constructor(
    private readonly indexes: StoreIndexes,
    private readonly recorder: EventRecorder,
    private readonly projects: ProjectStore,
  ) {}

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
      gid: this.indexes.nextGid('custom_field'),
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
    this.indexes.customFields.set(field.gid, field);
    push(this.indexes.customFieldsByWorkspace, field.workspace, field.gid);
    for (const o of input.enumOptions ?? []) this.addEnumOption({ field: field.gid, ...o });
    return field;
  }

  addEnumOption(input: { field: Gid; name: string; enabled?: boolean; color?: string }): EnumOption {
    const gid = this.indexes.nextGid('enum_option');
    const option: EnumOption = { gid, field: input.field, name: input.name, enabled: input.enabled ?? true, color: input.color ?? 'blue' };
    this.indexes.enumOptions.set(option.gid, option);
    this.indexes.customFields.get(input.field)?.enumOptions.push(option.gid);
    return option;
  }

  addCustomFieldSetting(input: { field: Gid; parent: Gid; isImportant?: boolean }): CustomFieldSetting {
    const existing = this.settingsOf(input.parent).find((s) => s.field === input.field);
    if (existing) return existing;
    const ix = this.indexes;
    const kind = ix.kindOf(input.parent);
    const parentType = kind === 'portfolio' ? 'portfolio' : kind === 'user_task_list' ? 'user_task_list' : 'project';
    const gid = ix.nextGid('custom_field_setting');
    const setting: CustomFieldSetting = { gid, field: input.field, parent: input.parent, parentType, isImportant: input.isImportant ?? true };
    ix.customFieldSettings.set(setting.gid, setting);
    push(ix.settingsByParent, setting.parent, setting.gid);
    const project = this.recorder.recording && parentType === 'project' ? ix.projects.get(setting.parent) : undefined;
    if (project) this.recordSettingChange(project, 'added', setting);
    return setting;
  }

  removeCustomFieldSetting(setting: CustomFieldSetting): void {
    this.indexes.customFieldSettings.delete(setting.gid);
    pull(this.indexes.settingsByParent, setting.parent, setting.gid);
    const project = this.indexes.projects.get(setting.parent);
    if (project) this.recordSettingChange(project, 'removed', setting);
  }

  /** A field added to or removed from a project is a change of the project. */
  private recordSettingChange(project: Project, action: 'added' | 'removed', setting: CustomFieldSetting): void {
    this.projects.change(project, 'custom_field_settings', () => undefined, { action, custom_field: this.recorder.ref('custom_field', setting.field) });
  }

  settingsOf(parent: Gid): CustomFieldSetting[] {
    return this.indexes.list(this.indexes.settingsByParent.get(parent), this.indexes.customFieldSettings);
  }

  addCustomType(input: { workspace: Gid; name: string }): CustomType {
    const type: CustomType = { gid: this.indexes.nextGid('custom_type'), workspace: input.workspace, name: input.name };
    this.indexes.customTypes.set(type.gid, type);
    push(this.indexes.customTypesByWorkspace, type.workspace, type.gid);
    return type;
  }

  addTag(input: { workspace: Gid; name: string; color?: string; createdAt?: number }): Tag {
    const ix = this.indexes;
    const gid = ix.nextGid('tag');
    const tag: Tag = { gid, workspace: input.workspace, name: input.name, color: input.color ?? 'dark-blue', createdAt: input.createdAt ?? ix.now() };
    ix.tags.set(tag.gid, tag);
    push(ix.tagsByWorkspace, tag.workspace, tag.gid);
    ix.tasksByTag.set(tag.gid, []);
    return tag;
  }

  addPortfolio(input: {
    workspace: Gid;
    name: string;
    owner: Gid;
    privacySetting?: Portfolio['privacySetting'];
    color?: string;
    createdAt?: number;
  }): Portfolio {
    const p: Portfolio = {
      gid: this.indexes.nextGid('portfolio'),
      workspace: input.workspace,
      name: input.name,
      owner: input.owner,
      items: [],
      privacySetting: input.privacySetting ?? 'members_only',
      color: input.color ?? 'light-purple',
      createdAt: input.createdAt ?? this.indexes.now(),
      archived: false,
    };
    this.indexes.portfolios.set(p.gid, p);
    push(this.indexes.portfoliosByWorkspace, p.workspace, p.gid);
    this.projects.addMembership({ parent: p.gid, member: p.owner, accessLevel: 'admin' });
    return p;
  }

  addProjectPortfolioSetting(input: { project: Gid; portfolio: Gid; isAccessControlInherited: boolean }): ProjectPortfolioSetting {
    const s: ProjectPortfolioSetting = { gid: this.indexes.nextGid('project_portfolio_setting'), ...input };
    this.indexes.projectPortfolioSettings.set(s.gid, s);
    push(this.indexes.portfolioSettingsByProject, s.project, s.gid);
    return s;
  }

  addGoal(input: { workspace: Gid; name: string; team?: Gid | null; owner?: Gid | null; createdAt?: number }): Goal {
    const goal: Goal = {
      gid: this.indexes.nextGid('goal'),
      workspace: input.workspace,
      team: input.team ?? null,
      name: input.name,
      owner: input.owner ?? null,
      followers: input.owner ? [input.owner] : [],
      isWorkspaceLevel: !input.team,
      privacySetting: 'public_to_workspace',
      createdAt: input.createdAt ?? this.indexes.now(),
    };
    this.indexes.goals.set(goal.gid, goal);
    push(this.indexes.goalsByWorkspace, goal.workspace, goal.gid);
    return goal;
  }

  addStatusUpdate(input: Omit<StatusUpdate, 'gid' | 'createdAt' | 'parentType'> & { createdAt?: number }): StatusUpdate {
    const ix = this.indexes;
    const kind = ix.kindOf(input.parent);
    if (kind !== 'project' && kind !== 'portfolio' && kind !== 'goal') throw new Error(`status updates belong to projects, portfolios and goals, not ${kind}`);
    const s: StatusUpdate = { ...input, gid: ix.nextGid('status_update'), parentType: kind, createdAt: input.createdAt ?? ix.now() };
    ix.statusUpdates.set(s.gid, s);
    push(ix.statusUpdatesByParent, s.parent, s.gid);
    this.recorder.recordUnder('added', this.recorder.ref('status_update', s.gid, s.title), kind, s.parent);
    return s;
  }

  deleteStatusUpdate(s: StatusUpdate): void {
    this.indexes.statusUpdates.delete(s.gid);
    pull(this.indexes.statusUpdatesByParent, s.parent, s.gid);
    this.recorder.recordUnder('deleted', this.recorder.ref('status_update', s.gid, s.title), s.parentType, s.parent);
  }

  addProjectStatus(input: Omit<ProjectStatus, 'gid' | 'createdAt'> & { createdAt?: number }): ProjectStatus {
    const s: ProjectStatus = { ...input, gid: this.indexes.nextGid('project_status'), createdAt: input.createdAt ?? this.indexes.now() };
    this.indexes.projectStatuses.set(s.gid, s);
    push(this.indexes.projectStatusesByProject, s.project, s.gid);
    this.recorder.recordUnder('added', this.recorder.ref('project_status', s.gid, s.title), 'project', s.project);
    return s;
  }

  deleteProjectStatus(s: ProjectStatus): void {
    this.indexes.projectStatuses.delete(s.gid);
    pull(this.indexes.projectStatusesByProject, s.project, s.gid);
    this.recorder.recordUnder('deleted', this.recorder.ref('project_status', s.gid, s.title), 'project', s.project);
  }

  addProjectTemplate(input: Omit<ProjectTemplate, 'gid' | 'workspace' | TemplateDefaults> & Partial<Pick<ProjectTemplate, TemplateDefaults>>): ProjectTemplate {
    const team = this.indexes.teams.get(input.team);
    if (!team) throw new Error(`a project template belongs to a team, not ${input.team}`);
    const gid = this.indexes.nextGid('project_template');
    const t: ProjectTemplate = { description: '', owner: null, public: true, color: 'light-blue', ...input, gid, workspace: team.workspace };
    this.indexes.projectTemplates.set(t.gid, t);
    push(this.indexes.projectTemplatesByTeam, t.team, t.gid);
    return t;
  }
}
