import type { Knex } from 'knex';
import { chunks } from '../../lib/chunks';

/** Ids per `where … in` statement. */
const IDS_PER_STATEMENT = 200;

/*
 * Access as of a run's start (`access_as_of` on files, users and groups): a run that started
 * earlier than the one that wrote a row's access never writes its older view over it (an
 * access-only run beside a long full run, docs/scaling-out.md).
 */

/** A stored access list newer than the one a batch would write: it is kept, with its fingerprint. */
export type StoredAccess = { permissions_hash: string; permissions_modified_at: string | null; access_as_of: string };

/**
 * The files among `ids` whose stored access list was read by a run that started after `asOf`
 * (an access-only run, while the run writing started earlier): that newer view is kept.
 */
export async function newerAccess(trx: Knex.Transaction, ids: readonly string[], asOf: string): Promise<Map<string, StoredAccess>> {
  const newer = new Map<string, StoredAccess>();
  for (const part of chunks(ids, IDS_PER_STATEMENT)) {
    const rows = (await trx('files')
      .whereIn('id', part)
      .where('access_as_of', '>', asOf)
      .select('id', 'permissions_hash', 'permissions_modified_at', 'access_as_of')) as Array<StoredAccess & { id: string }>;
    for (const { id, ...access } of rows) newer.set(id, access);
  }
  return newer;
}

/** `items` but those whose row in `table` an access-only run that started after `asOf` wrote. */
export async function withoutNewer<T>(
  trx: Knex.Transaction,
  table: 'users' | 'groups',
  items: readonly T[],
  idOf: (item: T) => string,
  asOf: string,
): Promise<T[]> {
  if (items.length === 0) return [];
  const newer = new Set<string>();
  for (const part of chunks(items.map(idOf), IDS_PER_STATEMENT)) {
    const rows = (await trx(table).whereIn('id', part).where('access_as_of', '>', asOf).select('id')) as Array<{ id: string }>;
    for (const row of rows) newer.add(row.id);
  }
  return newer.size === 0 ? [...items] : items.filter((item) => !newer.has(idOf(item)));
}

/** A file row as written: its access fingerprint the stored newer one's, or this run's. */
export function withAccessOf<R extends object>(row: R, newer: StoredAccess | undefined, asOf: string): R {
  return newer ? { ...row, ...newer } : { ...row, access_as_of: asOf };
}
