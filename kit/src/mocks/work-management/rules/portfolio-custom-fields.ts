/**
 * A portfolio's custom field settings (seed "Custom field setting": "A setting applies to direct
 * children only: a portfolio setting gives each project the field but not the tasks in those
 * projects"):
 * - a project directly in a portfolio shows the portfolio's fields in its own `custom_fields`, and
 *   `PUT /projects/{gid}` may set their values (validated as on tasks; null clears);
 * - the tasks of that project do not get them: not in their `custom_fields`, and setting one on a
 *   task is 400, as for any field not on the task's projects;
 * - only direct children: a project in a portfolio that is itself in a portfolio gets nothing from
 *   the outer one;
 * - the project's own `custom_field_settings` stay its own (the fields its tasks get);
 * - as on tasks, a value whose field no longer applies (the project left the portfolio, or the
 *   setting was removed) is kept but disabled, and can then only be cleared.
 */
import { badRequest } from '../api/api-error';
import type { Gid, Project, StoredValue, WorkManagementStore } from '../model';
import { displayValue, parseValue, type TaskFieldEntry } from './custom-fields';

/** Fields a project gets from the portfolios it is directly in, in portfolio then setting order. */
export function fieldsFromPortfolios(store: WorkManagementStore, project: Project): Gid[] {
  const out: Gid[] = [];
  for (const gid of store.indexes.portfoliosByWorkspace.get(project.workspace) ?? []) {
    const portfolio = store.indexes.portfolios.get(gid);
    if (!portfolio?.items.includes(project.gid)) continue;
    for (const s of store.catalog.settingsOf(portfolio.gid)) if (!out.includes(s.field)) out.push(s.field);
  }
  return out;
}

/** What a project's `custom_fields` lists: its portfolios' fields, then disabled values kept on it. */
export function projectCustomFields(store: WorkManagementStore, project: Project): TaskFieldEntry[] {
  const applied = fieldsFromPortfolios(store, project);
  const out: TaskFieldEntry[] = [];
  for (const gid of applied) {
    const field = store.indexes.customFields.get(gid);
    if (field) out.push({ field, value: project.customFieldValues.find((v) => v.field === gid)?.value ?? null, enabled: true });
  }
  for (const v of project.customFieldValues) {
    const field = applied.includes(v.field) ? undefined : store.indexes.customFields.get(v.field);
    if (field) out.push({ field, value: v.value, enabled: false });
  }
  return out;
}

export interface ProjectFieldChange {
  field: Gid;
  value: StoredValue | null;
}

/** Validates `{field gid: value}` from a project update, changing nothing (all or nothing). */
export function planProjectCustomFields(store: WorkManagementStore, project: Project, input: unknown): ProjectFieldChange[] {
  if (input === undefined || input === null) return [];
  if (typeof input !== 'object' || Array.isArray(input)) throw badRequest('custom_fields: Value is not an object of {custom field gid: value}');
  const applied = fieldsFromPortfolios(store, project);
  const changes: ProjectFieldChange[] = [];
  for (const [gid, raw] of Object.entries(input as Record<string, unknown>)) {
    const field = store.indexes.customFields.get(gid);
    const current = project.customFieldValues.find((v) => v.field === gid);
    if (!field || field.workspace !== project.workspace || (!applied.includes(gid) && !current))
      throw badRequest(`custom_fields: Custom field with ID ${gid} is not on given object`);
    if (raw !== null && !applied.includes(gid))
      throw badRequest(`custom_fields: The value of custom field ${gid} is disabled on this project: it can only be cleared`);
    changes.push({ field: gid, value: parseValue(store, field, raw) });
  }
  return changes;
}

export function applyProjectCustomFields(store: WorkManagementStore, project: Project, changes: readonly ProjectFieldChange[]): void {
  for (const { field, value } of changes) {
    const definition = store.indexes.customFields.get(field);
    if (!definition) continue;
    store.projects.change(
      project,
      'custom_fields',
      () => {
        project.customFieldValues = project.customFieldValues.filter((v) => v.field !== field);
        if (value) project.customFieldValues.push({ field, value });
      },
      { gid: field, resource_type: 'custom_field', display_value: displayValue(store, definition, value) },
    );
  }
}
