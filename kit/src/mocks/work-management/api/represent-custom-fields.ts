/** Wire representations of custom fields, their values, enum options and settings, and custom types. */
import type { CustomField, CustomFieldSetting, CustomType, EnumOption, Gid } from '../model';
import { displayValue, type TaskFieldEntry } from '../rules/custom-fields';
import { fixed, namedSpec, prop, refAt, resourceSpec, userAt } from './field-specs';
import { node, nodeMaker, nodeOf, refs, type NodeSpec, type RenderContext } from './render-node';

const VALUE_PROPERTY: Record<CustomField['type'], string> = {
  text: 'text_value',
  number: 'number_value',
  enum: 'enum_value',
  multi_enum: 'multi_enum_values',
  date: 'date_value',
  people: 'people_value',
  reference: 'reference_value',
};

function enumOptionsOf(rc: RenderContext, gids: readonly Gid[]): unknown {
  return refs(gids, (g) => rc.ctx.store.indexes.enumOptions.get(g), nodeMaker('enumOption'));
}

function fieldMetadata(f: CustomField): string[] {
  return [
    'gid',
    'resource_type',
    'name',
    'type',
    'resource_subtype',
    ...(f.type === 'enum' || f.type === 'multi_enum' ? ['enum_options'] : []),
    ...(f.type === 'number' ? ['precision'] : []),
    ...(f.type === 'reference' ? ['input_restrictions'] : []),
  ];
}

/** A custom field value on a task: compact field metadata + `enabled`, `display_value` and the typed value. */
export const customFieldValueSpec: NodeSpec<TaskFieldEntry> = {
  valueObject: true,
  compact: (e) => [...fieldMetadata(e.field), 'enabled', 'display_value', VALUE_PROPERTY[e.field.type]],
  full: (e) => [...fieldMetadata(e.field), 'enabled', 'display_value', VALUE_PROPERTY[e.field.type]],
  fields: {
    gid: (e) => e.field.gid,
    resource_type: () => 'custom_field',
    name: (e) => e.field.name,
    type: (e) => e.field.type,
    resource_subtype: (e) => e.field.type,
    enum_options: (e, rc) => enumOptionsOf(rc, e.field.enumOptions),
    precision: (e) => e.field.precision,
    input_restrictions: (e) => e.field.inputRestrictions,
    enabled: (e) => e.enabled,
    display_value: (e, rc) => displayValue(rc.ctx.store, e.field, e.value),
    text_value: (e) => (e.value?.type === 'text' ? e.value.text : e.field.type === 'text' ? null : undefined),
    number_value: (e) => (e.value?.type === 'number' ? e.value.number : e.field.type === 'number' ? null : undefined),
    enum_value: (e, rc) => {
      if (e.field.type !== 'enum') return undefined;
      const o = e.value?.type === 'enum' ? rc.ctx.store.indexes.enumOptions.get(e.value.option) : undefined;
      return o ? node('enumOption', o) : null;
    },
    multi_enum_values: (e, rc) => (e.field.type !== 'multi_enum' ? undefined : e.value?.type === 'multi_enum' ? enumOptionsOf(rc, e.value.options) : []),
    date_value: (e) => (e.field.type !== 'date' ? undefined : e.value?.type === 'date' ? { date: e.value.date, date_time: e.value.dateTime } : null),
    people_value: (e, rc) =>
      e.field.type !== 'people'
        ? undefined
        : e.value?.type === 'people'
          ? refs(e.value.users, (g) => rc.ctx.store.indexes.users.get(g), nodeMaker('user'))
          : [],
    reference_value: (e, rc) =>
      e.field.type !== 'reference' ? undefined : e.value?.type === 'reference' ? e.value.refs.map((g) => nodeOf(rc, g)).filter(Boolean) : [],
  },
};

export const enumOptionSpec: NodeSpec<EnumOption> = resourceSpec<EnumOption>('enum_option', {
  compact: ['name', 'enabled', 'color'],
  fields: { name: prop('name'), enabled: prop('enabled'), color: prop('color') },
});

export const customFieldSpec: NodeSpec<CustomField> = {
  compact: (f) => fieldMetadata(f),
  full: (f) => [
    ...fieldMetadata(f),
    'precision',
    'created_by',
    'privacy_setting',
    'is_global_to_workspace',
    'has_notifications_enabled',
    'format',
    'is_formula_field',
  ],
  fields: {
    gid: prop('gid'),
    resource_type: () => 'custom_field',
    name: prop('name'),
    type: prop('type'),
    resource_subtype: prop('type'),
    enum_options: (f, rc) => (f.type === 'enum' || f.type === 'multi_enum' ? enumOptionsOf(rc, f.enumOptions) : undefined),
    precision: (f) => (f.type === 'number' ? f.precision : undefined),
    input_restrictions: (f) => (f.type === 'reference' ? f.inputRestrictions : undefined),
    description: prop('description'),
    created_by: userAt('createdBy'),
    privacy_setting: prop('privacySetting'),
    format: (f) => (f.type === 'number' ? 'custom' : 'none'),
    ...fixed({ is_global_to_workspace: true, has_notifications_enabled: true, is_formula_field: false }),
  },
};

export const customFieldSettingSpec: NodeSpec<CustomFieldSetting> = resourceSpec<CustomFieldSetting>('custom_field_setting', {
  compact: ['custom_field', 'is_important', 'parent', 'project'],
  fields: {
    custom_field: refAt('field'),
    is_important: prop('isImportant'),
    parent: refAt('parent'),
    project: (s, rc) => (s.parentType === 'project' ? nodeOf(rc, s.parent) : undefined),
  },
});

export const customTypeSpec: NodeSpec<CustomType> = namedSpec<CustomType>('custom_type', ['status_options'], { ...fixed({ status_options: [] }) });
