import type { Knex } from 'knex';
import { isPostgres, type Db } from '../../src/staging/database/create-db';
import { fileWireJson } from '../../src/wire/file-wire-json';
import { chunks } from '../../src/lib/chunks';
import { insertRows } from '../../src/staging/write-path/insert-rows';
import { withoutSecondaryIndexes } from '../../src/staging/write-path/secondary-indexes';
import type { FileRow, GroupRow, PrincipalType, UserRow } from '../../src/staging/database/row-types';

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

/**
 * `row` (its parts, in order) over `defaults`, with anything left undefined stored as NULL, so every row has the same
 * columns. `Object.assign`, not a spread: V8 turned writing the NULLs into a spread literal's copy
 * into ~140 µs a file row (14 s of a 100,000-file load), against ~5 µs this way.
 */
function complete(defaults: object, ...row: readonly object[]): Record<string, unknown> {
  const out = Object.assign({}, defaults, ...row) as Record<string, unknown>;
  for (const key of Object.keys(out)) if (out[key] === undefined) out[key] = null;
  return out;
}

/** A file and its access list, as the writer stages them. */
export interface StagedFile {
  file: FileInput;
  permissions: readonly Principal[];
}

/** The strings of a JSON array bound as the one parameter, as a subquery (a batch's ids in one statement, whatever their number). */
const jsonTextList = (trx: Knex.Transaction): string => (isPostgres(trx) ? 'select json_array_elements_text(?::json)' : 'select value from json_each(?)');

/** `files` with their list JSON, each one's access list replaced (the rows of `putFiles`). */
async function writeFiles(trx: Knex.Transaction, files: readonly StagedFile[]): Promise<void> {
  await insertRows(
    trx,
    'files',
    files.map((f) => complete(FILE_DEFAULTS, f.file, { wire_json: fileWireJson(f.file) })),
    ['id'],
    'merge',
  );
  const ids = files.map((f) => f.file.id);
  await trx('file_permissions')
    .whereRaw(`file_id in (${jsonTextList(trx)})`, [JSON.stringify(ids)])
    .delete();
  const permissions = files.flatMap(({ file, permissions: list }) =>
    list.map((p) => ({ file_id: file.id, principal_type: p.type, principal_id: p.id, action: 'VIEW', served_id: p.id })),
  );
  await insertRows(trx, 'file_permissions', permissions, ['file_id', 'principal_type', 'principal_id'], 'ignore');
}

/** SQLite page cache (KiB) of a bulk load's connection: random-order keys touch every page of the key indexes. */
const LOAD_CACHE_KIB = 512 * 1024;

/** Runs `work` with SQLite's page cache raised to `LOAD_CACHE_KIB` on the transaction's connection, restored after. */
async function withLoadCache<T>(trx: Knex.Transaction, work: () => Promise<T>): Promise<T> {
  if (trx.client.config.client !== 'better-sqlite3') return work();
  const [before] = (await trx.raw('pragma cache_size')) as Array<{ cache_size: number }>;
  await trx.raw(`pragma cache_size = -${LOAD_CACHE_KIB}`);
  try {
    return await work();
  } finally {
    await trx.raw(`pragma cache_size = ${Number(before?.cache_size ?? -2000)}`);
  }
}

/**
 * Writes staging rows directly, served as given (no person resolution: a user is its own person,
 * an access entry or member serves its own id), in one transaction per call, so a reader sees
 * either none or all of a batch: for tests and benchmarks that need staged content without a source to sync, and
 * for bulk loads (`loadFiles`) of a large volume (the sync engine writes through `SyncStore`; the HTTP layer only reads).
 */
export class StagingWriter {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Upserts files and replaces each one's access list. */
  async putFiles(files: readonly StagedFile[]): Promise<void> {
    await this.transaction((trx) => writeFiles(trx, files));
  }

  /**
   * Stages a large volume of files, batch after batch, in one transaction: nothing of it is seen
   * until all of it is, and nothing stays when a batch fails. Each batch is written as `putFiles`
   * writes it; loading into an empty `files` table (a first load) drops its secondary indexes and
   * builds them once at the end (see `withoutSecondaryIndexes`), and SQLite gets a larger page
   * cache for the load; on Postgres a VACUUM follows it. Returns how many files it wrote.
   */
  async loadFiles(batches: AsyncIterable<readonly StagedFile[]> | Iterable<readonly StagedFile[]>): Promise<number> {
    const written = await this.transaction((trx) =>
      withLoadCache(trx, () =>
        withoutSecondaryIndexes(trx, ['files', 'file_permissions'], async () => {
          let count = 0;
          for await (const batch of batches) {
            await writeFiles(trx, batch);
            count += batch.length;
          }
          return count;
        }),
      ),
    );
    // Postgres: mark the new pages all-visible (list pages then read from the covering indexes
    // alone) and gather the planner's statistics now, rather than when autovacuum comes by.
    if (isPostgres(this.db)) await this.db.raw('vacuum (analyze) files, file_permissions');
    return written;
  }

  /** Upserts users served as given: each is an account and the person it stands for, under one id. */
  async putUsers(users: readonly UserInput[]): Promise<void> {
    await this.transaction(async (trx) => {
      await insertRows(
        trx,
        'users',
        users.map((u) => complete(IDENTITY_DEFAULTS, u, { person_id: u.id })),
        ['id'],
        'merge',
      );
      const people = users.map((u) => ({
        id: u.id,
        email: u.email,
        full_name: u.full_name ?? null,
        state: u.state,
        modified_at: u.modified_at,
        metadata: u.metadata ?? null,
        content_hash: null,
      }));
      await insertRows(trx, 'people', people, ['id'], 'merge');
    });
  }

  /** Upserts groups and replaces each one's direct members. */
  async putGroups(groups: ReadonlyArray<{ group: GroupInput; members: readonly Principal[] }>): Promise<void> {
    await this.transaction(async (trx) => {
      await insertRows(
        trx,
        'groups',
        groups.map((g) => complete(IDENTITY_DEFAULTS, g.group)),
        ['id'],
        'merge',
      );
      const ids = groups.map((g) => g.group.id);
      for (const part of chunks(ids, IDS_PER_STATEMENT)) await trx('group_members').whereIn('group_id', part).delete();
      const members = groups.flatMap(({ group, members: list }) =>
        list.map((m) => ({ group_id: group.id, member_type: m.type, member_id: m.id, served_id: m.id })),
      );
      await insertRows(trx, 'group_members', members, ['group_id', 'member_type', 'member_id'], 'ignore');
    });
  }
}
