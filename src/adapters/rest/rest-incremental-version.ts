import crypto from 'node:crypto';

/** A listed record's version: the `incremental_sync.version` expression's value, else a hash of the record as listed. */
export function recordVersion(record: unknown, value: string | undefined): string {
  return value ?? crypto.createHash('sha256').update(JSON.stringify(record)).digest('base64url');
}
