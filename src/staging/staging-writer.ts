import type { Knex } from 'knex';
import type { Db } from './create-db';
import { fileWireJson } from '../wire/file-resource';
import { chunks } from '../lib/chunks';
import { insertRows } from './insert-rows';
import type { FileRow, GroupRow, PrincipalType, UserRow } from './row-types';

export type FileInput = Omit<FileRow, 'seen_run' | 'deleted_at' | 'permissions_modified_at' | 'content_hash'> &
  Partial<Pick<FileRow, 'seen_run' | 'deleted_at' | 'permissions_modified_at' | 'content_hash'>>;
export type UserInput = Omit<UserRow, 'seen_run'> & Partial<Pick<UserRow, 'seen_run'>>;
export type GroupInput = Omit<GroupRow, 'seen_run'> & Partial<Pick<GroupRow, 'seen_run'>>;
export interface Principal {
  type: PrincipalType;
  id: string;
}

/** Values for the columns a caller may leave out (none has a database default). */
const FILE_DEFAULTS = { seen_run: null, deleted_at: null, permissions_modified_at: null, content_hash: null, source_version: null, permissions_hash: null };
const IDENTITY_DEFAULTS = { seen_run: null };
/** Ids per `where … in` statement. */
const IDS_PER_STATEMENT = 200;

/** `row` over `defaults`, with anything left undefined stored as NULL, so every row has the same columns. */
function complete(defaults: object, row: object): Record<string, unknown> {
  const out = { ...defaults, ...row } as Record<string, unknown>;
  for (const key of Object.keys(out)) if (out[key] === undefined) out[key] = null;
  return out;
}

/**
 * Writes staging rows directly, served as given (no person resolution: a user is its own person,
 * an access entry or member serves its own id), in one transaction per call, so a reader sees
 * either none or all of a batch: for tests and benchmarks that need staged content without a source to sync (the
 * sync engine writes through `SyncStore`; the HTTP layer only reads).
 */
export class StagingWriter {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Upserts files and replaces each one's access list. */
  async putFiles(files: ReadonlyArray<{ file: FileInput; permissions: readonly Principal[] }>): Promise<void> {
    await this.transaction(async (trx) => {
      await insertRows(trx, 'files', files.map((f) => complete(FILE_DEFAULTS, { ...f.file, wire_json: fileWireJson(f.file) })), ['id'], 'merge');
      const ids = files.map((f) => f.file.id);
      for (const part of chunks(ids, IDS_PER_STATEMENT)) await trx('file_permissions').whereIn('file_id', part).delete();
      const permissions = files.flatMap(({ file, permissions: list }) =>
        list.map((p) => ({ file_id: file.id, principal_type: p.type, principal_id: p.id, action: 'VIEW', served_id: p.id })),
      );
      await insertRows(trx, 'file_permissions', permissions, ['file_id', 'principal_type', 'principal_id'], 'ignore');
    });
  }

  /** Upserts users served as given: each is an account and the person it stands for, under one id. */
  async putUsers(users: readonly UserInput[]): Promise<void> {
    await this.transaction(async (trx) => {
      await insertRows(trx, 'users', users.map((u) => complete(IDENTITY_DEFAULTS, { ...u, person_id: u.id })), ['id'], 'merge');
      const people = users.map((u) => ({ id: u.id, email: u.email, full_name: u.full_name ?? null, state: u.state, modified_at: u.modified_at, metadata: u.metadata ?? null, content_hash: null }));
      await insertRows(trx, 'people', people, ['id'], 'merge');
    });
  }

  /** Upserts groups and replaces each one's direct members. */
  async putGroups(groups: ReadonlyArray<{ group: GroupInput; members: readonly Principal[] }>): Promise<void> {
    await this.transaction(async (trx) => {
      await insertRows(trx, 'groups', groups.map((g) => complete(IDENTITY_DEFAULTS, g.group)), ['id'], 'merge');
      const ids = groups.map((g) => g.group.id);
      for (const part of chunks(ids, IDS_PER_STATEMENT)) await trx('group_members').whereIn('group_id', part).delete();
      const members = groups.flatMap(({ group, members: list }) =>
        list.map((m) => ({ group_id: group.id, member_type: m.type, member_id: m.id, served_id: m.id })),
      );
      await insertRows(trx, 'group_members', members, ['group_id', 'member_type', 'member_id'], 'ignore');
    });
  }
}
