/**
 * Custom fields (seed "Custom field"; reference §5.12):
 * - types `text` (at most 1024 characters), `number` (rounded to `precision` decimal places),
 *   `enum` (one option), `multi_enum` (options), `date` (date with optional time), `people`
 *   (users), `reference` (objects whose type is in `input_restrictions`, which is never empty);
 * - `display_value` is always a string whatever the type ("" when blank);
 * - an enum option with `enabled: false` cannot be chosen but stays in metadata and on values
 *   already set to it;
 * - a value is `enabled` while at least one of the task's projects has the field; it is disabled
 *   (kept, still readable) when the field leaves the task's projects and enabled again when it
 *   returns; a disabled value rejects any change other than being cleared (`null`);
 * - a project or portfolio has at most 20 custom fields.
 */
import { badRequest, notFound } from '../api/api-error';
import type { CustomField, CustomFieldSetting, CustomFieldType, Gid, StoredValue, Task, WorkManagementStore } from '../model';

export const CUSTOM_FIELD_TYPES: readonly CustomFieldType[] = ['text', 'number', 'enum', 'multi_enum', 'date', 'people', 'reference'];
export const REFERENCE_TYPES = ['task', 'project', 'portfolio', 'goal'] as const;
export const MAX_TEXT_LENGTH = 1024;
export const MAX_CUSTOM_FIELDS_PER_PARENT = 20;

/** Rounds half away from zero to `precision` decimal places, without binary-float surprises. */
export function roundToPrecision(value: number, precision: number): number {
  const p = Math.max(0, Math.min(6, Math.trunc(precision)));
  const rounded = shiftDecimal(Math.round(shiftDecimal(Math.abs(value), p)), -p);
  return rounded === 0 ? 0 : value < 0 ? -rounded : rounded;
}

/** x × 10^e computed on the decimal string (1.005 stays 1.005, not 1.00499…). */
function shiftDecimal(x: number, e: number): number {
  const [mantissa, exponent = '0'] = String(x).split('e');
  return Number(`${mantissa}e${Number(exponent) + e}`);
}

export function displayValue(store: WorkManagementStore, field: CustomField, value: StoredValue | null): string {
  if (!value) return '';
  switch (value.type) {
    case 'text':
      return value.text;
    case 'number':
      return value.number.toFixed(field.precision);
    case 'enum':
      return store.indexes.enumOptions.get(value.option)?.name ?? '';
    case 'multi_enum':
      return value.options
        .map((o) => store.indexes.enumOptions.get(o)?.name ?? '')
        .filter(Boolean)
        .join(', ');
    case 'date':
      return value.dateTime ?? value.date;
    case 'people':
      return value.users
        .map((u) => store.indexes.users.get(u)?.name ?? '')
        .filter(Boolean)
        .join(', ');
    case 'reference':
      return value.refs
        .map((r) => store.recorder.nameOf(r) ?? '')
        .filter(Boolean)
        .join(', ');
  }
}

/** Fields applied to a task through its projects' custom field settings, in order. */
export function fieldsOnTaskProjects(store: WorkManagementStore, task: Task): Gid[] {
  const out: Gid[] = [];
  for (const m of task.memberships) {
    for (const s of store.catalog.settingsOf(m.project)) if (!out.includes(s.field)) out.push(s.field);
  }
  return out;
}

/** A value is enabled while at least one of the task's projects carries the field. */
export function isValueEnabled(store: WorkManagementStore, task: Task, field: Gid): boolean {
  return task.memberships.some((m) => store.catalog.settingsOf(m.project).some((s) => s.field === field));
}

export interface TaskFieldEntry {
  field: CustomField;
  value: StoredValue | null;
  enabled: boolean;
}

/** What a task's `custom_fields` lists: its projects' fields, then disabled values kept on it. */
export function taskCustomFields(store: WorkManagementStore, task: Task): TaskFieldEntry[] {
  const applied = fieldsOnTaskProjects(store, task);
  const out: TaskFieldEntry[] = [];
  for (const gid of applied) {
    const field = store.indexes.customFields.get(gid);
    if (!field) continue;
    out.push({ field, value: task.customFieldValues.find((v) => v.field === gid)?.value ?? null, enabled: true });
  }
  for (const v of task.customFieldValues) {
    if (applied.includes(v.field)) continue;
    const field = store.indexes.customFields.get(v.field);
    if (field) out.push({ field, value: v.value, enabled: false });
  }
  return out;
}

/** Validates one input value for a field; null clears. */
export function parseValue(store: WorkManagementStore, field: CustomField, raw: unknown): StoredValue | null {
  if (raw === null) return null;
  const where = `custom_fields.${field.gid}`;
  switch (field.type) {
    case 'text': {
      if (typeof raw !== 'string') throw badRequest(`${where}: Text custom field values must be strings`);
      if (raw.length > MAX_TEXT_LENGTH) throw badRequest(`${where}: Text custom field values are at most ${MAX_TEXT_LENGTH} characters`);
      return { type: 'text', text: raw };
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      if (!Number.isFinite(n)) throw badRequest(`${where}: Number custom field values must be numbers`);
      return { type: 'number', number: roundToPrecision(n, field.precision) };
    }
    case 'enum': {
      if (typeof raw !== 'string') throw badRequest(`${where}: Enum custom field values are enum option gids`);
      return { type: 'enum', option: enabledOption(store, field, raw, where) };
    }
    case 'multi_enum': {
      const list = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === 'string'
          ? raw
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined;
      if (!list) throw badRequest(`${where}: Multi-enum custom field values are lists of enum option gids`);
      return { type: 'multi_enum', options: [...new Set(list.map((o) => enabledOption(store, field, o, where)))] };
    }
    case 'date': {
      const obj = typeof raw === 'string' ? { date: raw } : (raw as { date?: unknown; date_time?: unknown });
      if (typeof obj !== 'object' || obj === null) throw badRequest(`${where}: Date custom field values are {date} or {date_time}`);
      if (typeof obj.date_time === 'string') {
        const t = Date.parse(obj.date_time);
        if (Number.isNaN(t)) throw badRequest(`${where}: Not a valid date-time: ${obj.date_time}`);
        const iso = new Date(t).toISOString();
        return { type: 'date', date: iso.slice(0, 10), dateTime: iso };
      }
      if (typeof obj.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(obj.date) && !Number.isNaN(Date.parse(obj.date)))
        return { type: 'date', date: obj.date, dateTime: null };
      throw badRequest(`${where}: Date custom field values are {date: YYYY-MM-DD} or {date_time}`);
    }
    case 'people': {
      const list = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === 'string'
          ? raw
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined;
      if (!list) throw badRequest(`${where}: People custom field values are lists of user gids`);
      for (const u of list) if (!store.indexes.users.has(u)) throw badRequest(`${where}: Not a recognized ID: ${u}`);
      return { type: 'people', users: [...new Set(list)] };
    }
    case 'reference': {
      const list = Array.isArray(raw)
        ? raw.map(String)
        : typeof raw === 'string'
          ? raw
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined;
      if (!list) throw badRequest(`${where}: Reference custom field values are lists of gids`);
      for (const r of list) {
        const kind = store.indexes.kindOf(r);
        if (!kind || !field.inputRestrictions.includes(kind))
          throw badRequest(`${where}: ${r} is not one of the allowed types (${field.inputRestrictions.join(', ')})`);
      }
      return { type: 'reference', refs: [...new Set(list)] };
    }
  }
}

function enabledOption(store: WorkManagementStore, field: CustomField, gid: string, where: string): Gid {
  const option = store.indexes.enumOptions.get(gid);
  if (!option || option.field !== field.gid) throw badRequest(`${where}: ${gid} is not an enum option of this field`);
  if (!option.enabled) throw badRequest(`${where}: Enum option ${gid} is disabled and cannot be chosen`);
  return option.gid;
}

function sameValue(a: StoredValue | null, b: StoredValue | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface CustomFieldChange {
  field: CustomField;
  value: StoredValue | null;
}

/**
 * Validates `{field gid: value}` from a task create or update and returns the changes, changing
 * nothing. Clearing (null) is always allowed; any other change needs the field on one of the
 * task's projects (an enabled value).
 */
export function planCustomFieldChanges(
  store: WorkManagementStore,
  task: Pick<Task, 'workspace' | 'memberships' | 'customFieldValues'>,
  input: unknown,
): CustomFieldChange[] {
  if (input === undefined || input === null) return [];
  if (typeof input !== 'object' || Array.isArray(input)) throw badRequest('custom_fields: Value is not an object of {custom field gid: value}');
  const changes: CustomFieldChange[] = [];
  for (const [gid, raw] of Object.entries(input as Record<string, unknown>)) {
    const field = store.indexes.customFields.get(gid);
    if (!field || field.workspace !== task.workspace) throw badRequest(`custom_fields: Custom field with ID ${gid} is not on given object`);
    const current = task.customFieldValues.find((v) => v.field === gid)?.value ?? null;
    if (raw === null) {
      changes.push({ field, value: null });
      continue;
    }
    if (!isValueEnabled(store, task as Task, gid)) {
      if (current) throw badRequest(`custom_fields: The value of custom field ${gid} is disabled on this task: it can only be cleared`);
      throw badRequest(`custom_fields: Custom field with ID ${gid} is not on given object`);
    }
    changes.push({ field, value: parseValue(store, field, raw) });
  }
  return changes;
}

export function applyCustomFieldChanges(store: WorkManagementStore, task: Task, changes: readonly CustomFieldChange[]): void {
  for (const { field, value } of changes) {
    const current = task.customFieldValues.find((v) => v.field === field.gid)?.value ?? null;
    if (sameValue(current, value)) continue;
    task.customFieldValues = task.customFieldValues.filter((v) => v.field !== field.gid);
    if (value) task.customFieldValues.push({ field: field.gid, value });
    store.tasks.touch(task, {
      field: 'custom_fields',
      action: 'changed',
      new_value: { gid: field.gid, resource_type: 'custom_field', display_value: displayValue(store, field, value) },
    });
  }
}

/** Validates everything first, then applies: a request is all or nothing. */
export function setTaskCustomFields(store: WorkManagementStore, task: Task, input: unknown): void {
  applyCustomFieldChanges(store, task, planCustomFieldChanges(store, task, input));
}

/** Adds a field to a project, portfolio or user task list (at most 20 per project or portfolio). */
export function addCustomFieldSetting(store: WorkManagementStore, parent: Gid, fieldGid: unknown, isImportant: unknown): CustomFieldSetting {
  if (typeof fieldGid !== 'string' || fieldGid === '') throw badRequest('custom_field: Missing input');
  const field = store.indexes.customFields.get(fieldGid);
  if (!field) throw notFound('custom_field', fieldGid);
  const existing = store.catalog.settingsOf(parent);
  const already = existing.find((s) => s.field === fieldGid);
  if (already) throw badRequest(`custom_field: Custom field ${fieldGid} is already on this object`);
  const kind = store.indexes.kindOf(parent);
  if ((kind === 'project' || kind === 'portfolio') && existing.length >= MAX_CUSTOM_FIELDS_PER_PARENT) {
    throw badRequest(`custom_field: A ${kind} can have at most ${MAX_CUSTOM_FIELDS_PER_PARENT} custom fields`);
  }
  return store.catalog.addCustomFieldSetting({ field: fieldGid, parent, isImportant: typeof isImportant === 'boolean' ? isImportant : true });
}

export function removeCustomFieldSetting(store: WorkManagementStore, parent: Gid, fieldGid: unknown): void {
  if (typeof fieldGid !== 'string' || fieldGid === '') throw badRequest('custom_field: Missing input');
  const setting = store.catalog.settingsOf(parent).find((s) => s.field === fieldGid);
  if (!setting) throw badRequest(`custom_field: Custom field ${fieldGid} is not on this object`);
  store.catalog.removeCustomFieldSetting(setting);
}

/** Validates a new field definition from `POST /custom_fields`. */
export function createCustomField(store: WorkManagementStore, data: Record<string, unknown>, createdBy: Gid): CustomField {
  const workspace = typeof data.workspace === 'string' ? data.workspace : undefined;
  if (!workspace) throw badRequest('workspace: Missing input');
  if (!store.indexes.workspaces.has(workspace)) throw notFound('workspace', workspace);
  const name = typeof data.name === 'string' ? data.name.trim() : '';
  if (!name) throw badRequest('name: Missing input');
  const type = (data.resource_subtype ?? data.type) as CustomFieldType | undefined;
  if (!type || !CUSTOM_FIELD_TYPES.includes(type)) throw badRequest(`resource_subtype: must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  let precision = 0;
  if (type === 'number' && data.precision !== undefined) {
    if (typeof data.precision !== 'number' || !Number.isInteger(data.precision) || data.precision < 0 || data.precision > 6)
      throw badRequest('precision: must be an integer from 0 to 6');
    precision = data.precision;
  }
  let inputRestrictions: string[] = [];
  if (type === 'reference') {
    const raw = data.input_restrictions;
    if (!Array.isArray(raw) || raw.length === 0) throw badRequest('input_restrictions: Reference custom fields need at least one allowed type');
    for (const r of raw)
      if (!(REFERENCE_TYPES as readonly string[]).includes(String(r)))
        throw badRequest(`input_restrictions: ${String(r)} is not one of ${REFERENCE_TYPES.join(', ')}`);
    inputRestrictions = [...new Set(raw.map(String))];
  }
  const options = Array.isArray(data.enum_options) ? (data.enum_options as Array<Record<string, unknown>>) : [];
  if (type !== 'enum' && type !== 'multi_enum' && options.length > 0) throw badRequest('enum_options: Only enum and multi_enum fields have options');
  return store.catalog.addCustomField({
    workspace,
    name,
    type,
    precision,
    description: typeof data.description === 'string' ? data.description : '',
    inputRestrictions,
    createdBy,
    enumOptions: options.map((o) => ({
      name: String(o.name ?? ''),
      enabled: o.enabled === undefined ? true : Boolean(o.enabled),
      color: typeof o.color === 'string' ? o.color : 'none',
    })),
  });
}
