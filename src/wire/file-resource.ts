import { parseJsonObject } from '../lib/parse-json-object';

const HTML = 'text/html';

/** Relative to `/v1/files`, as the platform's examples write it. */
export function downloadPath(id: string): string {
  return `/${encodeURIComponent(id)}/download`;
}

/**
 * The columns of a staged file (`files`, see migrations/) that its wire shape is made of. Declared
 * here, not imported from staging, so this module depends on nothing but `lib`: staging's `FileRow`
 * fits it as it is.
 */
export interface FileFields {
  id: string;
  name: string;
  external_url: string;
  mime_type: string;
  status: 'active' | 'deleted';
  size: number | string | null;
  sha1: string | null;
  body_html: string | null;
  created_at: string | null;
  created_by: string | null;
  modified_at: string;
  modified_by: string | null;
  parent_id: string | null;
  parent_name: string | null;
  parent_path: string | null;
  custom_attributes: string | null;
}

/** The columns `toFileResource` reads, the HTML body aside. */
export const FILE_RESOURCE_COLUMNS = [
  'id',
  'name',
  'external_url',
  'mime_type',
  'status',
  'size',
  'sha1',
  'created_at',
  'created_by',
  'modified_at',
  'modified_by',
  'parent_id',
  'parent_name',
  'parent_path',
  'custom_attributes',
] as const satisfies readonly Exclude<keyof FileFields, 'body_html'>[];

/**
 * A staged file as the platform reads it (the contract's `File`). `withBody` adds the inline HTML
 * (on `/v1/files/{id}`). Served by `http`; its list form, without the body, is also stored
 * pre-serialised (`fileWireJson`), so list pages are assembled from stored fragments.
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
