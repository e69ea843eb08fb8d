import type { FileRow } from './row-types';
import { parseJsonObject } from './parse-json-object';

const HTML = 'text/html';

/** Relative to `/v1/files`, as the platform's examples write it. */
export function downloadPath(id: string): string {
  return `/${encodeURIComponent(id)}/download`;
}

/** The columns `toFileResource` reads, the HTML body aside. */
export const FILE_RESOURCE_COLUMNS = [
  'id', 'name', 'external_url', 'mime_type', 'status', 'size', 'sha1', 'created_at', 'created_by',
  'modified_at', 'modified_by', 'parent_id', 'parent_name', 'parent_path', 'custom_attributes',
] as const;

type FileFields = Pick<
  FileRow,
  | 'id' | 'name' | 'external_url' | 'mime_type' | 'status' | 'size' | 'sha1' | 'body_html' | 'created_at' | 'created_by'
  | 'modified_at' | 'modified_by' | 'parent_id' | 'parent_name' | 'parent_path' | 'custom_attributes'
>;

/**
 * A staged file as the platform reads it (the contract's `File`). `withBody` adds the inline HTML
 * (on `/v1/files/{id}`). Lives beside the rows because writers also store it, pre-serialised, as
 * `wire_json`: list pages are then assembled from stored fragments instead of being rebuilt.
 */
export function toFileResource(row: FileFields, withBody: boolean): Record<string, unknown> {
  const content: Record<string, unknown> = { mime_type: row.mime_type };
  if (row.mime_type === HTML) {
    if (withBody && row.body_html !== null && row.body_html !== undefined) content.body = row.body_html;
  } else {
    content.download_path = downloadPath(row.id);
    if (row.sha1) content.sha1_hash = row.sha1;
  }
  if (row.size !== null && row.size !== undefined) content.size = Number(row.size);

  const file: Record<string, unknown> = {
    id: row.id,
    name: row.name,
    external_url: row.external_url,
    last_modified_datetime: row.modified_at,
    status: row.status,
    content,
  };
  if (row.created_at) file.created_datetime = row.created_at;
  if (row.created_by) file.created_by = row.created_by;
  if (row.modified_by) file.last_modified_by = row.modified_by;
  const attributes = parseJsonObject(row.custom_attributes);
  if (attributes) file.custom_attributes = attributes;
  if (row.parent_id && row.parent_name !== null) {
    file.parent_info = { id: row.parent_id, name: row.parent_name, ...(row.parent_path ? { path: row.parent_path } : {}) };
  }
  return file;
}

/** The list representation (no HTML body), serialised once when a file is written. */
export function fileWireJson(row: FileFields): string {
  return JSON.stringify(toFileResource(row, false));
}
