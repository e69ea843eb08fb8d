import type { Knex } from 'knex';

/**
 * Every file row holds its served list JSON (`wire_json`): list pages are read from it alone, with
 * no fallback to building the item from the row's columns. Rows written before the writers stored
 * it (or by a writer that left it out) get it here, built as the gateway builds it (its
 * `fileWireJson`); on Postgres the generated `list_json` copy follows.
 *
 * Self-contained (a migration is frozen): the served list shape as it was when this was written.
 */
const BATCH = 500;
const HTML = 'text/html';

interface FileRow {
  id: string;
  name: string;
  external_url: string;
  mime_type: string;
  status: string;
  size: number | string | null;
  sha1: string | null;
  created_at: string | null;
  created_by: string | null;
  modified_at: string;
  modified_by: string | null;
  parent_id: string | null;
  parent_name: string | null;
  parent_path: string | null;
  custom_attributes: string | null;
}

const COLUMNS = [
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
] as const;

function jsonObject(text: string | null): Record<string, unknown> | undefined {
  if (!text) return undefined;
  const value: unknown = JSON.parse(text);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The file's list item: its resource without the HTML body. */
function listJson(row: FileRow): string {
  const content: Record<string, unknown> = { mime_type: row.mime_type };
  if (row.mime_type !== HTML) {
    content.download_path = `/${encodeURIComponent(row.id)}/download`;
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
  const attributes = jsonObject(row.custom_attributes);
  if (attributes) file.custom_attributes = attributes;
  if (row.parent_id && row.parent_name !== null) {
    file.parent_info = { id: row.parent_id, name: row.parent_name, ...(row.parent_path ? { path: row.parent_path } : {}) };
  }
  return JSON.stringify(file);
}

export async function up(knex: Knex): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (await knex('files')
      .where((q) => q.whereNull('wire_json').orWhere('wire_json', ''))
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select([...COLUMNS])) as FileRow[];
    if (rows.length === 0) return;
    for (const row of rows)
      await knex('files')
        .where({ id: row.id })
        .update({ wire_json: listJson(row) });
    after = (rows[rows.length - 1] as FileRow).id;
  }
}

/** Nothing to undo: a row's list JSON is what the gateway would have built for it. */
export async function down(): Promise<void> {}
