import { parseJsonObject } from '../lib/parse-json-object';

/** The columns every served identity has (see staging/database/row-types.ts). */
interface IdentityFields {
  id: string;
  modified_at: string;
  metadata: string | null;
}

/** A served user's columns (a person: `people`, see staging/write-path/people.ts). */
export interface UserFields extends IdentityFields {
  email: string;
  full_name: string | null;
  state: string;
}

export interface GroupFields extends IdentityFields {
  name: string | null;
  created_at: string | null;
}

/** `id`, the identity's `own` fields, then its last change and metadata, in the contract's order. */
function identityResource(row: IdentityFields, own: Record<string, unknown>): Record<string, unknown> {
  const metadata = parseJsonObject(row.metadata);
  return { id: row.id, ...own, last_modified_datetime: row.modified_at, ...(metadata ? { metadata } : {}) };
}

/** A user as the platform reads it (the contract's `User`, on `/v1/users`). */
export function toUserResource(row: UserFields): Record<string, unknown> {
  return identityResource(row, { primary_email_addr: row.email, ...(row.full_name ? { full_name: row.full_name } : {}), state: row.state });
}

/** A group as the platform reads it (the contract's `Group`, on `/v1/groups`). */
export function toGroupResource(row: GroupFields): Record<string, unknown> {
  return identityResource(row, { ...(row.name ? { name: row.name } : {}), ...(row.created_at ? { created_datetime: row.created_at } : {}) });
}
