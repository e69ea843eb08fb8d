import type { Knex } from 'knex';

/**
 * Served ids are bounded (src/wire/global-id.ts): `<source>:<native id>` while that is at most
 * 1,024 characters percent-encoded and the native id is not of the digest's shape
 * (`~` and 64 hex digits), `<source>:~<SHA-256>` otherwise. Rows staged before that rule whose
 * ids it now gives otherwise are removed here: files (with their access lists), groups (with
 * their members) and source accounts, and every access entry or membership that serves an id
 * over the limit. They could not stay: an over-long key breaks a page's `$skiptoken`, and the
 * next sync would stage each item again under its new id, beside the old row with the same native
 * id. Each source that lost a row loses its checkpoint too, so its next run is full and stages
 * them again (the platform sees the old ids leave the listing and the new ones arrive).
 *
 * Self-contained (a migration is frozen): the rule as it was when this was written.
 */
const MAX_ID_LENGTH = 1024;
/** An id of at most this many code points fits whatever they are (12 characters each at most, percent-encoded). */
const ALWAYS_FITS = Math.floor(MAX_ID_LENGTH / 12);
const DIGEST_SHAPE = /^~[0-9a-f]{64}$/;
const BATCH = 500;

function overLong(id: string): boolean {
  try {
    return encodeURIComponent(id).length > MAX_ID_LENGTH;
  } catch {
    return true; // a lone surrogate: no percent-encoding, no path
  }
}

interface Row {
  id: string;
  source: string;
  native_id: string;
}

/** Rows of `table` (files, groups or users) whose ids the rule now gives otherwise, read in batches by id. */
async function rekeyedRows(knex: Knex, table: string): Promise<Row[]> {
  const found: Row[] = [];
  let after = '';
  for (;;) {
    const rows = (await knex(table)
      .where('id', '>', after)
      .andWhere((q) => q.whereRaw('length(id) > ?', [ALWAYS_FITS]).orWhere('native_id', 'like', '~%'))
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'source', 'native_id')) as Row[];
    if (rows.length === 0) return found;
    found.push(...rows.filter((r) => overLong(r.id) || (r.id === `${r.source}:${r.native_id}` && DIGEST_SHAPE.test(r.native_id))));
    after = (rows[rows.length - 1] as Row).id;
  }
}

const ENTRY_COLUMNS = {
  file_permissions: { owner: 'file_id', type: 'principal_type', ref: 'principal_id', parent: 'files' },
  group_members: { owner: 'group_id', type: 'member_type', ref: 'member_id', parent: 'groups' },
} as const;

/** Removes the access entries or memberships of `table` that serve an id over the limit; the sources of their files or groups. */
async function removeOverLongEntries(knex: Knex, table: keyof typeof ENTRY_COLUMNS): Promise<string[]> {
  const c = ENTRY_COLUMNS[table];
  const rows = (await knex(`${table} as e`)
    .join(`${c.parent} as p`, 'p.id', `e.${c.owner}`)
    .whereRaw('length(e.served_id) > ?', [ALWAYS_FITS])
    .select({ owner: `e.${c.owner}`, type: `e.${c.type}`, ref: `e.${c.ref}`, served: 'e.served_id', source: 'p.source' })) as Array<{
    owner: string;
    type: string;
    ref: string;
    served: string;
    source: string;
  }>;
  const over = rows.filter((r) => overLong(r.served));
  for (const e of over)
    await knex(table)
      .where({ [c.owner]: e.owner, [c.type]: e.type, [c.ref]: e.ref })
      .delete();
  return over.map((e) => e.source);
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

export async function up(knex: Knex): Promise<void> {
  const sources = new Set<string>([...(await removeOverLongEntries(knex, 'file_permissions')), ...(await removeOverLongEntries(knex, 'group_members'))]);
  for (const [table, children] of [
    ['files', [['file_permissions', 'file_id']]],
    ['groups', [['group_members', 'group_id']]],
    ['users', []],
  ] as const) {
    const rows = await rekeyedRows(knex, table);
    for (const part of chunks(rows.map((r) => r.id))) {
      for (const [child, column] of children) await knex(child).whereIn(column, part).delete();
      await knex(table).whereIn('id', part).delete();
    }
    for (const r of rows) sources.add(r.source);
  }
  if (sources.size > 0)
    await knex('sync_checkpoints')
      .whereIn('source', [...sources])
      .delete();
}

/** Nothing to undo: the rows removed are staged again by the next sync. */
export async function down(): Promise<void> {}
