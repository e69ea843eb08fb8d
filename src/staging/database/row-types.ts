import type { FileFields } from '../../wire/file-resource';

/**
 * Rows as stored in staging (see migrations/). Timestamps are ISO-8601 UTC strings. A file row is
 * the columns it is served from (`FileFields`, beside its wire shape) plus the bookkeeping ones.
 */
export interface FileRow extends FileFields {
  source: string;
  native_id: string;
  sha256: string | null;
  blob_key: string | null;
  content_hash: string | null;
  permissions_modified_at: string | null;
  seen_run: number | null;
  deleted_at: string | null;
  source_version?: string | null;
  permissions_hash?: string | null;
  /** `fileWireJson(row)`, stored by writers; null for rows written before it existed. */
  wire_json?: string | null;
}

export type PrincipalType = 'USER' | 'GROUP';

export interface PermissionRow {
  file_id: string;
  principal_type: PrincipalType;
  principal_id: string;
  action: 'VIEW';
}

export interface UserRow {
  id: string;
  source: string;
  native_id: string;
  email: string;
  full_name: string | null;
  state: 'Active' | 'Inactive';
  modified_at: string;
  metadata: string | null;
  seen_run: number | null;
}

export interface GroupRow {
  id: string;
  source: string;
  native_id: string;
  name: string | null;
  created_at: string | null;
  modified_at: string;
  metadata: string | null;
  seen_run: number | null;
}

export interface MemberRow {
  group_id: string;
  member_type: PrincipalType;
  member_id: string;
  /** Joined from users/groups for display; null when the member is not staged. */
  member_name?: string | null;
}
