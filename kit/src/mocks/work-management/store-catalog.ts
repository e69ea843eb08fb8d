/** The store's catalog builders: custom fields, enum options and settings, custom types, tags, portfolios, goals, status updates and project templates (events recorded once recording is on). */
import type { Gid, CustomFieldType, CustomField, EnumOption, CustomFieldSetting, CustomType, Tag, Portfolio, ProjectPortfolioSetting, Goal, StatusUpdate, ProjectStatus, ProjectTemplate } from './model-types';
import { pull, push } from './store-base';
import { TaskStore } from './store-tasks';

export class CatalogStore extends TaskStore {
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
}
