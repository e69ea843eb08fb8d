import type { Knex } from 'knex';
import type { Db } from '../database/create-db';
import { FILE_RESOURCE_COLUMNS } from '../../wire/file-resource';
import { fileWireJson } from '../../wire/file-wire-json';
import { chunks } from '../../lib/chunks';
import { withoutNewer } from './access-as-of';
import { insertRows } from './insert-rows';
import { writeAccessLists, writeFiles } from './write-files';
import { accountsReferenced, personsOf, resolveAccounts, servedIdOf } from './people';
import { personIdOf } from './person-id';
import type { FileRow, GroupRow, PrincipalType, UserRow } from '../database/row-types';

export interface PrincipalRef {
  type: PrincipalType;
  id: string;
}

export type FileState = Pick<
  FileRow,
  'id' | 'status' | 'content_hash' | 'sha256' | 'sha1' | 'size' | 'blob_key' | 'modified_at' | 'permissions_modified_at'
> & { source_version: string | null; permissions_hash: string | null };
export type UserState = Pick<UserRow, 'id' | 'state' | 'modified_at'> & { content_hash: string | null };
export type GroupState = Pick<GroupRow, 'id' | 'modified_at'> & { content_hash: string | null };

/** `seen_run`: set by `apply` to the run that writes the row (its seen mark, see `unseenFiles`). */
export type FileWrite = FileRow & { source_version: string | null; permissions_hash: string; access_as_of?: string | null };
export type UserWrite = Omit<UserRow, 'seen_run'> & { content_hash: string; access_as_of?: string };
export type GroupWrite = Omit<GroupRow, 'seen_run'> & { content_hash: string; access_as_of?: string };
/** A staged group as it can be written back: its row and its direct members. */
export interface StagedGroup {
  row: Omit<GroupRow, 'seen_run'>;
  members: PrincipalRef[];
}

/** One transaction's worth of changes decided by the sync engine. */
export interface SyncBatch {
  /**
   * `stored`: a row with this id existed when the batch was decided. Only those can have an access
   * list or a blob to replace (access rows cascade with their file, and one sync per source runs).
   */
  files: Array<{ row: FileWrite; permissions: PrincipalRef[]; stored: boolean }>;
  /** Access lists changed while the file itself did not. */
  permissions: Array<{ fileId: string; permissions: PrincipalRef[]; hash: string; at: string }>;
  /** Source versions that moved while the served content did not (kept for the next comparison). */
  versions: Array<{ fileId: string; version: string | null }>;
  users: UserWrite[];
  groups: Array<{ row: GroupWrite; members: PrincipalRef[] }>;
  tombstones: string[];
  inactivate: string[];
  deleteGroups: string[];
  /** What a full run saw in this batch, written or not (the sweep spares it). */
  seen: Array<{ kind: 'file' | 'user' | 'group'; id: string }>;
}

/** Every access entry and member a batch writes (their accounts decide what each serves). */
function* referencesOf(batch: SyncBatch): Generator<PrincipalRef> {
  for (const f of batch.files) yield* f.permissions;
  for (const p of batch.permissions) yield* p.permissions;
  for (const g of batch.groups) yield* g.members;
}

export function emptyBatch(): SyncBatch {
  return { files: [], permissions: [], versions: [], users: [], groups: [], tombstones: [], inactivate: [], deleteGroups: [], seen: [] };
}

/** Ids per `where … in` statement. */
const IDS_PER_STATEMENT = 200;
/** Files a sweep tombstones at a time (no list of every unseen file is held). */
const SWEEP_PAGE = 1000;

/**
 * The sync engine's reads and writes of staging. Every `apply` is one transaction, so the gateway
 * sees a batch whole or not at all; blobs are written by the engine before the rows that point at
 * them reach `apply`.
 */
export class SyncStore {
  constructor(private readonly db: Db) {}

  async fileStates(ids: readonly string[]): Promise<Map<string, FileState>> {
    const out = new Map<string, FileState>();
    for (const part of chunks(ids, 500)) {
      const rows = (await this.db('files')
        .whereIn('id', part)
        .select(
          'id',
          'status',
          'content_hash',
          'sha256',
          'sha1',
          'size',
          'blob_key',
          'modified_at',
          'permissions_modified_at',
          'source_version',
          'permissions_hash',
        )) as FileState[];
      for (const r of rows) out.set(r.id, r);
    }
    return out;
  }

  /** The staged access lists of these files, by file id (a file without entries is left out). */
  async stagedAccess(ids: readonly string[]): Promise<Map<string, PrincipalRef[]>> {
    const out = new Map<string, PrincipalRef[]>();
    for (const part of chunks(ids, 500)) {
      const rows = (await this.db('file_permissions').whereIn('file_id', part).select('file_id', 'principal_type', 'principal_id')) as Array<{
        file_id: string;
        principal_type: PrincipalType;
        principal_id: string;
      }>;
      for (const r of rows) out.set(r.file_id, [...(out.get(r.file_id) ?? []), { type: r.principal_type, id: r.principal_id }]);
    }
    return out;
  }

  /** The staged rows and direct members of these groups, by group id (a group staging lacks is left out). */
  async stagedGroups(ids: readonly string[]): Promise<Map<string, StagedGroup>> {
    const out = new Map<string, StagedGroup>();
    for (const part of chunks(ids, 500)) {
      const rows = (await this.db('groups').whereIn('id', part).select('id', 'source', 'native_id', 'name', 'created_at', 'modified_at', 'metadata')) as Array<
        StagedGroup['row']
      >;
      for (const row of rows) out.set(row.id, { row, members: [] });
      const members = (await this.db('group_members').whereIn('group_id', part).select('group_id', 'member_type', 'member_id')) as Array<{
        group_id: string;
        member_type: PrincipalType;
        member_id: string;
      }>;
      for (const m of members) out.get(m.group_id)?.members.push({ type: m.member_type, id: m.member_id });
    }
    return out;
  }

  /** The inline body staged for a file (null when it has none): kept bodies, when their row is written again. */
  async stagedBody(id: string): Promise<string | null> {
    const row = (await this.db('files').where({ id }).first('body_html')) as { body_html: string | null } | undefined;
    return row?.body_html ?? null;
  }

  async userStates(ids: readonly string[]): Promise<Map<string, UserState>> {
    const out = new Map<string, UserState>();
    for (const part of chunks(ids, 500)) {
      for (const r of (await this.db('users').whereIn('id', part).select('id', 'state', 'modified_at', 'content_hash')) as UserState[]) out.set(r.id, r);
    }
    return out;
  }

  async groupStates(ids: readonly string[]): Promise<Map<string, GroupState>> {
    const out = new Map<string, GroupState>();
    for (const part of chunks(ids, 500)) {
      for (const r of (await this.db('groups').whereIn('id', part).select('id', 'modified_at', 'content_hash')) as GroupState[]) out.set(r.id, r);
    }
    return out;
  }

  /**
   * Applies a batch in one transaction; returns blob keys no longer referenced by the rows it
   * changed. Of the seen marks, a written file's goes into its row (`seen_run`), the others into
   * `sync_seen`: a full run then adds no row per file it stages.
   */
  async apply(batch: SyncBatch, runId: number, at: string, accessAsOf: string = at): Promise<string[]> {
    const released: string[] = [];
    const written = new Set<string>();
    for (const f of batch.files) {
      f.row.seen_run = runId;
      written.add(f.row.id);
    }
    const seen = batch.seen.filter((s) => s.kind !== 'file' || !written.has(s.id));
    await this.db.transaction(async (trx) => {
      // Accounts first: the access lists and members below are served through them. Users and
      // groups an access-only run that started later wrote are kept as it wrote them.
      const users = await withoutNewer(trx, 'users', batch.users, (u) => u.id, accessAsOf);
      const groups = await withoutNewer(trx, 'groups', batch.groups, (g) => g.row.id, accessAsOf);
      await this.writeAccounts(
        trx,
        users.map((u) => ({ ...u, access_as_of: accessAsOf })),
        at,
      );
      const accounts = await accountsReferenced(trx, referencesOf(batch));
      const served = (fileId: string, p: PrincipalRef) => ({
        file_id: fileId,
        principal_type: p.type,
        principal_id: p.id,
        action: 'VIEW',
        served_id: servedIdOf(p, accounts),
      });
      released.push(...(await writeFiles(trx, batch.files, served, accessAsOf)));
      await writeAccessLists(trx, batch.permissions, served, accessAsOf);
      for (const v of batch.versions) await trx('files').where({ id: v.fileId }).update({ source_version: v.version });
      if (groups.length) {
        const ids = groups.map((g) => g.row.id);
        await insertRows(
          trx,
          'groups',
          groups.map((g) => ({ ...g.row, access_as_of: accessAsOf })),
          ['id'],
          'merge',
        );
        for (const part of chunks(ids, IDS_PER_STATEMENT)) await trx('group_members').whereIn('group_id', part).delete();
        const members = groups.flatMap((g) =>
          g.members.map((m) => ({ group_id: g.row.id, member_type: m.type, member_id: m.id, served_id: servedIdOf(m, accounts) })),
        );
        await insertRows(trx, 'group_members', members, ['group_id', 'member_type', 'member_id'], 'ignore');
      }
      released.push(...(await this.tombstone(trx, batch.tombstones, at)));
      await this.inactivateAccounts(trx, batch.inactivate, at);
      for (const part of chunks(batch.deleteGroups, IDS_PER_STATEMENT)) {
        await trx('group_members').whereIn('group_id', part).delete();
        await trx('groups').whereIn('id', part).delete();
      }
      await insertRows(
        trx,
        'sync_seen',
        seen.map((s) => ({ run_id: runId, kind: s.kind, id: s.id })),
        ['run_id', 'kind', 'id'],
        'ignore',
      );
    });
    return this.unreferenced(released);
  }

  /** Source accounts, each with the person its email maps to; then what they serve (see people.ts). */
  private async writeAccounts(trx: Knex.Transaction, users: readonly UserWrite[], at: string): Promise<void> {
    if (users.length === 0) return;
    const ids = users.map((u) => u.id);
    const former = await personsOf(trx, ids);
    await insertRows(
      trx,
      'users',
      users.map((u) => ({ ...u, person_id: personIdOf(u.id, u.email) })),
      ['id'],
      'merge',
    );
    await resolveAccounts(trx, ids, former, at);
  }

  /** Accounts a source removed: Inactive, so their references serve nothing and their persons are made again. */
  private async inactivateAccounts(trx: Knex.Transaction, ids: readonly string[], at: string): Promise<void> {
    for (const part of chunks(ids, IDS_PER_STATEMENT)) {
      await trx('users').whereIn('id', part).where({ state: 'Active' }).update({ state: 'Inactive', modified_at: at, content_hash: null });
    }
    await resolveAccounts(trx, ids, [], at);
  }

  /** Active files become `deleted` tombstones: metadata kept, content dropped, list JSON rewritten. */
  private async tombstone(trx: Knex.Transaction, ids: readonly string[], at: string): Promise<string[]> {
    const released: string[] = [];
    for (const part of chunks(ids, IDS_PER_STATEMENT)) {
      const rows = (await trx('files')
        .whereIn('id', part)
        .where({ status: 'active' })
        .select([...FILE_RESOURCE_COLUMNS, 'blob_key'])) as FileRow[];
      for (const row of rows) {
        if (row.blob_key) released.push(row.blob_key);
        // What the platform sees changes; the stored list JSON is rebuilt from the same values.
        const served = { status: 'deleted' as const, modified_at: at, body_html: null };
        await trx('files')
          .where({ id: row.id })
          .update({ ...served, deleted_at: at, blob_key: null, content_hash: null, source_version: null, wire_json: fileWireJson({ ...row, ...served }) });
      }
    }
    return released;
  }

  /** Ids of every active file of `source` (access reconciliation compares them with what the source lists). */
  async activeFileIds(source: string): Promise<string[]> {
    return ((await this.db('files').where({ source, status: 'active' }).select('id')) as Array<{ id: string }>).map((r) => r.id);
  }

  async activeFileCount(source: string): Promise<number> {
    const row = (await this.db('files').where({ source, status: 'active' }).count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  }

  /** Active files of `source` that run `runId` neither wrote (`seen_run`) nor marked seen (`sync_seen`). */
  private unseenFiles(db: Knex, source: string, runId: number) {
    return db('files')
      .where({ source, status: 'active' })
      .where((q) => q.whereNull('seen_run').orWhereNot('seen_run', runId))
      .whereNotIn('id', db('sync_seen').where({ run_id: runId, kind: 'file' }).select('id'));
  }

  async unseenActiveFileCount(source: string, runId: number): Promise<number> {
    const row = (await this.unseenFiles(this.db, source, runId).count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  }

  /**
   * The sweep of a completed full run: unseen files become tombstones, unseen users Inactive,
   * unseen groups (with their memberships) are removed. Returns counts and released blob keys.
   */
  async sweep(source: string, runId: number, at: string): Promise<{ files: number; users: number; groups: number; released: string[] }> {
    const released: string[] = [];
    const result = await this.db.transaction(async (trx) => {
      // A page at a time: a tombstoned file is no longer active, so the same query gives the next page.
      let files = 0;
      for (;;) {
        const page = (await this.unseenFiles(trx, source, runId).orderBy('id').limit(SWEEP_PAGE).select('id')) as Array<{ id: string }>;
        if (page.length === 0) break;
        released.push(
          ...(await this.tombstone(
            trx,
            page.map((f) => f.id),
            at,
          )),
        );
        files += page.length;
      }
      const unseen = (await trx('users')
        .where({ source, state: 'Active' })
        .whereNotIn('id', trx('sync_seen').where({ run_id: runId, kind: 'user' }).select('id'))
        .select('id')) as Array<{ id: string }>;
      await this.inactivateAccounts(
        trx,
        unseen.map((u) => u.id),
        at,
      );
      const users = unseen.length;
      const goneGroups = trx('groups')
        .where({ source })
        .whereNotIn('id', trx('sync_seen').where({ run_id: runId, kind: 'group' }).select('id'))
        .select('id');
      await trx('group_members').whereIn('group_id', goneGroups).delete();
      const groups = await trx('groups')
        .where({ source })
        .whereNotIn('id', trx('sync_seen').where({ run_id: runId, kind: 'group' }).select('id'))
        .delete();
      return { files, users: Number(users), groups: Number(groups) };
    });
    return { ...result, released: await this.unreferenced(released) };
  }

  /** Tombstones older than `before` are deleted for good (the retention window has passed). */
  async purgeTombstones(source: string, before: string): Promise<number> {
    return Number(await this.db('files').where({ source, status: 'deleted' }).where('deleted_at', '<', before).delete());
  }

  async otherSyncRunning(source: string): Promise<boolean> {
    return (await this.db('sync_locks').whereNot({ source }).first('source')) !== undefined;
  }

  /** Drops the seen marks of this source's runs that can no longer resume (the caller holds the lock). */
  async clearFinishedSeen(source: string): Promise<void> {
    await this.db('sync_seen')
      .whereIn('run_id', this.db('sync_runs').where({ source }).whereNot({ status: 'running' }).select('id'))
      .delete();
  }

  async clearSeen(runId: number): Promise<void> {
    await this.db('sync_seen').where({ run_id: runId }).delete();
  }

  /** The subset of `keys` no file row points at any more (safe to delete from the blob store). */
  async unreferenced(keys: readonly string[]): Promise<string[]> {
    const unique = [...new Set(keys)];
    const still = new Set<string>();
    for (const part of chunks(unique, 500)) {
      for (const r of (await this.db('files').whereIn('blob_key', part).select('blob_key')) as Array<{ blob_key: string }>) still.add(r.blob_key);
    }
    return unique.filter((k) => !still.has(k));
  }
}
