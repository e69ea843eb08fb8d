import type { CollectionSpec } from '../odata/collection-spec';
import type { FileField, PermissionField } from '../staging/files-repository';
import type { GroupField, MemberField, UserField } from '../staging/identities-repository';

const datetimeOps = ['gt', 'ge', 'lt', 'le', 'eq'] as const;
const string = { kind: 'string' } as const;
const datetime = { kind: 'datetime' } as const;
const principalType = { kind: 'enum', values: ['USER', 'GROUP'] } as const;

/** What each collection's OData options may name, mapped to repository fields. */
export const filesCollection: CollectionSpec<FileField> = {
  filterable: {
    last_modified_datetime: { field: 'modified', type: datetime, ops: datetimeOps },
    status: { field: 'status', type: { kind: 'enum', values: ['active', 'deleted'] }, ops: ['eq'] },
    id: { field: 'id', type: string, ops: ['eq'] },
  },
  orderable: { id: 'id', last_modified_datetime: 'modified' },
  key: 'id',
  selectable: [
    'id', 'name', 'external_url', 'last_modified_datetime', 'status', 'content', 'created_datetime', 'created_by',
    'last_modified_by', 'custom_attributes', 'parent_info',
  ],
};

export const usersCollection: CollectionSpec<UserField> = {
  filterable: {
    last_modified_datetime: { field: 'modified', type: datetime, ops: datetimeOps },
    state: { field: 'state', type: { kind: 'enum', values: ['Active', 'Inactive'] }, ops: ['eq'] },
    id: { field: 'id', type: string, ops: ['eq'] },
  },
  orderable: { id: 'id', last_modified_datetime: 'modified' },
  key: 'id',
  selectable: ['id', 'primary_email_addr', 'full_name', 'state', 'last_modified_datetime', 'metadata'],
};

export const groupsCollection: CollectionSpec<GroupField> = {
  filterable: {
    last_modified_datetime: { field: 'modified', type: datetime, ops: datetimeOps },
    id: { field: 'id', type: string, ops: ['eq'] },
  },
  orderable: { id: 'id', last_modified_datetime: 'modified' },
  key: 'id',
  selectable: ['id', 'name', 'created_datetime', 'last_modified_datetime', 'metadata'],
};

export const membersCollection: CollectionSpec<MemberField> = {
  filterable: {
    type: { field: 'type', type: principalType, ops: ['eq'] },
    id: { field: 'id', type: string, ops: ['eq'] },
  },
  orderable: { type: 'type' },
  key: 'id',
  selectable: ['type', 'id', 'name'],
};

export const permissionsCollection: CollectionSpec<PermissionField> = {
  filterable: {
    type: { field: 'type', type: principalType, ops: ['eq'] },
    id: { field: 'id', type: string, ops: ['eq'] },
  },
  orderable: { type: 'type' },
  key: 'id',
  selectable: ['type', 'id', 'action'],
};
