import type { Db } from '../../src/staging/database/create-db';

/**
 * Staging state of one source, table by table, as `key → canonical JSON of the row`: what two
 * databases are compared on. `timestamps: false` leaves out the wall-clock columns (and the
 * timestamp inside the stored list representation), which legitimately differ between two runs
 * made at different times; everything else (names, URLs, hashes, blob keys, statuses, access
 * lists, memberships, the checkpoint) must match exactly. The checkpoint's own
 * scan time is always left out: every run, even one that changes nothing, renews it.
 */
export type StagingSnapshot = Record<'files' | 'permissions' | 'users' | 'groups' | 'members' | 'checkpoint', Map<string, string>>;

const FILE_TIMES = ['modified_at', 'permissions_modified_at', 'deleted_at', 'access_as_of'];
/** A user's or group's wall-clock columns: when it last changed, and the start of the run that last wrote its access. */
const ROW_TIMES = ['modified_at', 'access_as_of'];

function canonical(row: Record<string, unknown>, drop: readonly string[]): string {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row).sort()) {
    if (drop.includes(key)) continue;
    const value = row[key];
    // Postgres returns bigint columns as strings.
    out[key] = key === 'size' && value !== null ? Number(value) : value;
  }
  return JSON.stringify(out);
}

export async function stagingSnapshot(db: Db, source: string, options: { timestamps: boolean }): Promise<StagingSnapshot> {
  const like = `${source}:%`;
  const files = (await db('files').where({ source }).orderBy('id').select('*')) as Array<Record<string, unknown>>;
  const snapshot: StagingSnapshot = {
    files: new Map(),
    permissions: new Map(),
    users: new Map(),
    groups: new Map(),
    members: new Map(),
    checkpoint: new Map(),
  };
  for (const f of files) {
    const wire = typeof f.wire_json === 'string' ? (JSON.parse(f.wire_json) as Record<string, unknown>) : null;
    if (wire && !options.timestamps) delete wire.last_modified_datetime;
    // `list_json` (Postgres) is generated from `wire_json`: compared through it.
    snapshot.files.set(String(f.id), canonical({ ...f, wire_json: wire }, ['seen_run', 'list_json', ...(options.timestamps ? [] : FILE_TIMES)]));
  }
  for (const p of (await db('file_permissions').where('file_id', 'like', like).select('*')) as Array<Record<string, unknown>>) {
    snapshot.permissions.set(`${String(p.file_id)} ${String(p.principal_type)} ${String(p.principal_id)}`, canonical(p, []));
  }
  for (const u of (await db('users').where({ source }).select('*')) as Array<Record<string, unknown>>) {
    snapshot.users.set(String(u.id), canonical(u, ['seen_run', ...(options.timestamps ? [] : ROW_TIMES)]));
  }
  for (const g of (await db('groups').where({ source }).select('*')) as Array<Record<string, unknown>>) {
    snapshot.groups.set(String(g.id), canonical(g, ['seen_run', ...(options.timestamps ? [] : ROW_TIMES)]));
  }
  for (const m of (await db('group_members').where('group_id', 'like', like).select('group_id', 'member_type', 'member_id')) as Array<
    Record<string, unknown>
  >) {
    snapshot.members.set(`${String(m.group_id)} ${String(m.member_type)} ${String(m.member_id)}`, canonical(m, []));
  }
  const checkpoint = (await db('sync_checkpoints').where({ source }).first()) as { checkpoint: string; updated_at: string } | undefined;
  if (checkpoint) {
    // When the scan ran is bookkeeping that every run renews; what it found must match.
    const { scannedAt: _scannedAt, ...found } = JSON.parse(checkpoint.checkpoint) as Record<string, unknown>;
    snapshot.checkpoint.set(source, canonical(found, []));
  }
  return snapshot;
}

/** Differences between two snapshots, at most `limit` of them, readable in a failure message. */
export function snapshotDiff(expected: StagingSnapshot, actual: StagingSnapshot, limit = 20): string[] {
  const out: string[] = [];
  for (const table of Object.keys(expected) as Array<keyof StagingSnapshot>) {
    const a = expected[table];
    const b = actual[table];
    for (const [key, value] of a) {
      if (!b.has(key)) out.push(`${table} ${key}: missing`);
      else if (b.get(key) !== value) out.push(`${table} ${key}: ${firstDifference(value, b.get(key) ?? '')}`);
    }
    for (const key of b.keys()) if (!a.has(key)) out.push(`${table} ${key}: unexpected ${b.get(key)}`);
  }
  return out.length > limit ? [...out.slice(0, limit), `... and ${out.length - limit} more`] : out;
}

/** Where two canonical rows first differ, with a little context (rows can be long). */
function firstDifference(expected: string, actual: string): string {
  let i = 0;
  while (i < expected.length && expected[i] === actual[i]) i += 1;
  const from = Math.max(0, i - 60);
  return `\n    expected …${expected.slice(from, i + 60)}…\n    actual   …${actual.slice(from, i + 60)}…`;
}

/** Keys (per table) whose rows differ between two snapshots. */
export function changedKeys(before: StagingSnapshot, after: StagingSnapshot): Record<keyof StagingSnapshot, string[]> {
  const out = {} as Record<keyof StagingSnapshot, string[]>;
  for (const table of Object.keys(before) as Array<keyof StagingSnapshot>) {
    const keys = new Set([...before[table].keys(), ...after[table].keys()]);
    out[table] = [...keys].filter((k) => before[table].get(k) !== after[table].get(k)).sort();
  }
  return out;
}
