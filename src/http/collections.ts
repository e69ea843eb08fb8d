import type { CollectionSpec, FilterableField } from '../odata/collection-spec';
import type { FileField, PermissionField } from '../staging/repositories/files-repository';
import type { GroupField, MemberField, UserField } from '../staging/repositories/identities-repository';

const datetimeOps = ['gt', 'ge', 'lt', 'le', 'eq'] as const;
const string = { kind: 'string' } as const;
const datetime = { kind: 'datetime' } as const;
const principalType = { kind: 'enum', values: ['USER', 'GROUP'] } as const;

/**
 * Files, users and groups: `$filter` on the last change (any comparison), on `id` and on their own
 * `extra` fields; `$orderby` id (the default) or last change; keyed by id.
 */
function changingCollection<F extends string>(
  selectable: readonly string[],
  extra: Readonly<Record<string, FilterableField<F>>> = {},
): CollectionSpec<F | 'id' | 'modified'> {
  return {
    filterable: {
      last_modified_datetime: { field: 'modified', type: datetime, ops: datetimeOps },
      ...extra,
      id: { field: 'id', type: string, ops: ['eq'] },
    },
    orderable: { id: 'id', last_modified_datetime: 'modified' },
    key: 'id',
    selectable,
  };
}

/** What each collection's OData options may name, mapped to repository fields. */
export const filesCollection: CollectionSpec<FileField> = changingCollection(
  [
    'id',
    'name',
    'external_url',
    'last_modified_datetime',
    'status',
    'content',
    'created_datetime',
    'created_by',
    'last_modified_by',
    'custom_attributes',
    'parent_info',
  ],
  { status: { field: 'status', type: { kind: 'enum', values: ['active', 'deleted'] }, ops: ['eq'] } },
);

export const usersCollection: CollectionSpec<UserField> = changingCollection(
  ['id', 'primary_email_addr', 'full_name', 'state', 'last_modified_datetime', 'metadata'],
  { state: { field: 'state', type: { kind: 'enum', values: ['Active', 'Inactive'] }, ops: ['eq'] } },
);

export const groupsCollection: CollectionSpec<GroupField> = changingCollection(['id', 'name', 'created_datetime', 'last_modified_datetime', 'metadata']);

/** Group members and access lists: `$filter` on principal type and id, ordered by type, keyed by id. */
function principalCollection(selectable: readonly string[]): CollectionSpec<'type' | 'id'> {
  return {
    filterable: {
      type: { field: 'type', type: principalType, ops: ['eq'] },
      id: { field: 'id', type: string, ops: ['eq'] },
    },
    orderable: { type: 'type' },
    key: 'id',
    selectable,
  };
}

export const membersCollection: CollectionSpec<MemberField> = principalCollection(['type', 'id', 'name']);

export const permissionsCollection: CollectionSpec<PermissionField> = principalCollection(['type', 'id', 'action']);
