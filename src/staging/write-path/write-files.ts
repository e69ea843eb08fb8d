import type { Knex } from 'knex';
import { chunks } from '../../lib/chunks';
import { newerAccess, withAccessOf } from './access-as-of';
import { insertRows } from './insert-rows';

/** Ids per `where … in` statement. */
const IDS_PER_STATEMENT = 200;

/** An access entry as `file_permissions` serves it. */
export type Served<P> = (fileId: string, p: P) => Record<string, unknown>;

/** A file to write (`stored`: a row with its id existed), with its access list. */
export interface FileToWrite<R, P> {
  row: R;
  permissions: readonly P[];
  stored: boolean;
}

/** An access list to rewrite, its file unchanged. */
export interface AccessListToWrite<P> {
  fileId: string;
  permissions: readonly P[];
  hash: string;
  at: string;
}

/**
 * A batch's files with their access lists (those a later access-only run wrote kept, with their
 * fingerprint); the blob keys the rows pointed at before, to release.
 */
export async function writeFiles<R extends { id: string }, P>(
  trx: Knex.Transaction,
  files: ReadonlyArray<FileToWrite<R, P>>,
  served: Served<P>,
  accessAsOf: string,
): Promise<string[]> {
  const released: string[] = [];
  if (files.length === 0) return released;
  const ids = files.filter((f) => f.stored).map((f) => f.row.id);
  const newer = await newerAccess(trx, ids, accessAsOf);
  for (const part of chunks(ids, IDS_PER_STATEMENT)) {
    const old = (await trx('files').whereIn('id', part).whereNotNull('blob_key').select('blob_key')) as Array<{ blob_key: string }>;
    released.push(...old.map((r) => r.blob_key));
    await trx('file_permissions')
      .whereIn(
        'file_id',
        part.filter((id) => !newer.has(id)),
      )
      .delete();
  }
  await insertRows(
    trx,
    'files',
    files.map((f) => withAccessOf(f.row, newer.get(f.row.id), accessAsOf)),
    ['id'],
    'merge',
  );
  const permissions = files.filter((f) => !newer.has(f.row.id)).flatMap((f) => f.permissions.map((p) => served(f.row.id, p)));
  await insertRows(trx, 'file_permissions', permissions, ['file_id', 'principal_type', 'principal_id'], 'ignore');
  return released;
}

/** Access lists rewritten while their files did not change, but for those a later access-only run wrote. */
export async function writeAccessLists<P>(
  trx: Knex.Transaction,
  lists: ReadonlyArray<AccessListToWrite<P>>,
  served: Served<P>,
  accessAsOf: string,
): Promise<void> {
  const newer = await newerAccess(
    trx,
    lists.map((p) => p.fileId),
    accessAsOf,
  );
  for (const p of lists) {
    if (newer.has(p.fileId)) continue;
    await trx('file_permissions').where({ file_id: p.fileId }).delete();
    await insertRows(
      trx,
      'file_permissions',
      p.permissions.map((e) => served(p.fileId, e)),
      ['file_id', 'principal_type', 'principal_id'],
      'ignore',
    );
    await trx('files').where({ id: p.fileId }).update({ permissions_hash: p.hash, permissions_modified_at: p.at, access_as_of: accessAsOf });
  }
}
