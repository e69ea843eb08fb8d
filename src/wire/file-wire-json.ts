import { toFileResource, type FileFields } from './file-resource';

/**
 * A file row's served list JSON (its resource without the HTML body), stored as `wire_json` by every
 * writer of `files` (the sync's rows, its tombstones, the bulk loader), so list pages are assembled
 * from stored fragments and never built at read time. Rows written before the column existed were
 * filled by a migration (20261128000000_fill_file_wire_json) with a copy of this as it was then.
 */
export function fileWireJson(row: FileFields): string {
  return JSON.stringify(toFileResource(row, false));
}
