import type { Knex } from 'knex';
import type { Db } from './create-db';
import { fileWireJson } from './file-resource';
import type { FileRow, GroupRow, PrincipalType, UserRow } from './row-types';

export type FileInput = Omit<FileRow, 'seen_run' | 'deleted_at' | 'permissions_modified_at' | 'content_hash'> &
  Partial<Pick<FileRow, 'seen_run' | 'deleted_at' | 'permissions_modified_at' | 'content_hash'>>;
export type UserInput = Omit<UserRow, 'seen_run'> & Partial<Pick<UserRow, 'seen_run'>>;
export type GroupInput = Omit<GroupRow, 'seen_run'> & Partial<Pick<GroupRow, 'seen_run'>>;
export interface Principal {
  type: PrincipalType;
  id: string;
}

/** Rows per INSERT: well under SQLite's bound-parameter limit for the widest table. */
const BATCH = 200;

async function upsert(trx: Knex.Transaction, table: string, rows: readonly object[], key: string[]): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) {
    await trx(table).insert(rows.slice(i, i + BATCH)).onConflict(key).merge();
  }
}

/**
 * Writes staging rows in one transaction per call, so a reader sees either none or all of a
 * batch. The sync engine and the demo seeder write through here; the HTTP layer only reads.
 */
export class StagingWriter {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Upserts files and replaces each one's access list. */
  async putFiles(files: ReadonlyArray<{ file: FileInput; permissions: readonly Principal[] }>): Promise<void> {
    await this.transaction(async (trx) => {
      await upsert(trx, 'files', files.map((f) => ({ ...f.file, wire_json: fileWireJson(f.file) })), ['id']);
      const ids = files.map((f) => f.file.id);
      for (let i = 0; i < ids.length; i += BATCH) await trx('file_permissions').whereIn('file_id', ids.slice(i, i + BATCH)).delete();
      const permissions = files.flatMap(({ file, permissions: list }) =>
        list.map((p) => ({ file_id: file.id, principal_type: p.type, principal_id: p.id, action: 'VIEW' })),
      );
      await upsert(trx, 'file_permissions', permissions, ['file_id', 'principal_type', 'principal_id']);
    });
  }

  async putUsers(users: readonly UserInput[]): Promise<void> {
    await this.transaction((trx) => upsert(trx, 'users', users, ['id']));
  }

  /** Upserts groups and replaces each one's direct members. */
  async putGroups(groups: ReadonlyArray<{ group: GroupInput; members: readonly Principal[] }>): Promise<void> {
    await this.transaction(async (trx) => {
      await upsert(trx, 'groups', groups.map((g) => g.group), ['id']);
      const ids = groups.map((g) => g.group.id);
      for (let i = 0; i < ids.length; i += BATCH) await trx('group_members').whereIn('group_id', ids.slice(i, i + BATCH)).delete();
      const members = groups.flatMap(({ group, members: list }) =>
        list.map((m) => ({ group_id: group.id, member_type: m.type, member_id: m.id })),
      );
      await upsert(trx, 'group_members', members, ['group_id', 'member_type', 'member_id']);
    });
  }
}
