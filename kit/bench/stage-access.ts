import { fileWireJson } from 'content-gateway';
import type { FileRow, GroupRow, MemberRow, PermissionRow, PrincipalType, UserRow } from 'content-gateway';
import { seededRandom } from './seeded-random';
import type { BenchGateway } from './start-bench-gateway';

/** What `stageAccess` added to a gateway whose files `stageFiles` staged. */
export interface StagedAccess {
  users: number;
  inactiveUsers: number;
  groups: number;
  /** Direct member rows (users and sub-groups). */
  members: number;
  /** Groups with more direct members than one default page (100) holds. */
  pagedGroups: number;
  permissions: number;
  /** Files whose access list is longer than one default page. */
  pagedPermissionFiles: number;
  /** Binary rows given a real blob (their sha256/sha1/size/blob_key now describe it). */
  binaries: number;
  /** Distinct blobs written, and their bytes. */
  blobs: number;
  blobBytes: number;
  ms: number;
}

const SOURCE = 'bench';
/** Users staged unless a benchmark asks for more (the console's benchmark stages 10,000). */
export const DEFAULT_USERS = 5000;
const DEPARTMENTS = 13;
const TEAMS = 480;
/** Teams with a few hundred direct members: their member listings page (default `$top` 100). */
const BIG_TEAMS = 12;
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
/** Rows per multi-row INSERT: knex writes one as a compound SELECT, which SQLite caps at 500 terms. */
const CHUNK = 400;
const BLOB_MIN = 1024;
const BLOB_MAX = 16 * 1024;
/** Distinct blobs behind the ~10,000 binary rows (shared out by MIME type). */
const BLOBS = 1000;

const userId = (n: number): string => `${SOURCE}:user-${n}`;
const groupId = (name: string): string => `${SOURCE}:group-${name}`;

const staged = new WeakMap<BenchGateway, Promise<StagedAccess>>();

/**
 * Gives the bench corpus what a platform crawl reads beyond the file rows, once per gateway:
 * 5,000 users (or `users`; ~3 % inactive), nested groups (everyone → 13 departments → 480 teams, some teams
 * nesting another team, a dozen teams large enough that their member lists page), an access list
 * on every file (a team or department, sometimes a second group and a few users; ~1 % restricted
 * to one user; a few dozen files shared with a couple of hundred people, so their access lists
 * page), and a real small blob (1-16 KiB, 1,000 distinct ones shared out) behind every binary row, whose
 * hashes and size the row is updated to, list representation included (the corpus's own blob
 * keys point nowhere, and a download of a missing blob is a 500).
 *
 * It writes to the shared gateway: benchmarks that run after it see these rows too.
 */
export function stageAccess(gateway: BenchGateway, seed = 4242, users = DEFAULT_USERS): Promise<StagedAccess> {
  let found = staged.get(gateway);
  if (!found) {
    found = stage(gateway, seed, users);
    staged.set(gateway, found);
  }
  return found;
}

async function insertChunks<T extends object>(trx: BenchGateway['db'], table: string, rows: readonly T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await trx(table).insert(rows.slice(i, i + CHUNK));
}

function blobContent(mimeType: string, size: number, random: () => number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  if (mimeType === 'text/plain') {
    const line = Buffer.from(`Plain-text report line ${Math.floor(random() * 1e9)}.\n`);
    for (let i = 0; i < size; i += line.length) line.copy(buf, i, 0, Math.min(line.length, size - i));
  } else {
    // Seeded noise (so every run stages the same blobs) under a recognisable head; nothing opens them.
    let i = 0;
    for (; i + 4 <= size; i += 4) buf.writeUInt32LE(Math.floor(random() * 0x100000000), i);
    for (; i < size; i += 1) buf[i] = Math.floor(random() * 256);
    const head = Buffer.from(mimeType === 'application/pdf' ? '%PDF-1.7\n' : 'PK\u0003\u0004');
    head.copy(buf, 0, 0, Math.min(head.length, size));
  }
  return buf;
}

async function stage(gateway: BenchGateway, seed: number, userCount: number): Promise<StagedAccess> {
  const started = performance.now();
  const { db, blobs } = gateway;
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const iso = (ms: number): string => new Date(ms).toISOString();

  // Users.
  const users: UserRow[] = [];
  let inactiveUsers = 0;
  for (let n = 0; n < userCount; n += 1) {
    const inactive = random() < 0.03;
    if (inactive) inactiveUsers += 1;
    users.push({
      id: userId(n),
      source: SOURCE,
      native_id: `user-${n}`,
      email: `user${n}@example.com`,
      full_name: random() < 0.95 ? `User ${n}` : null,
      state: inactive ? 'Inactive' : 'Active',
      modified_at: iso(T0 + Math.floor(random() * 300 * 86_400_000)),
      metadata: null,
      seen_run: 1,
    });
  }

  // Groups: everyone → departments → teams; teams of ~10-40 users, big teams of 150-400.
  const groups: GroupRow[] = [];
  const members: MemberRow[] = [];
  const group = (name: string, title: string): string => {
    const id = groupId(name);
    groups.push({
      id,
      source: SOURCE,
      native_id: `group-${name}`,
      name: title,
      created_at: iso(T0),
      modified_at: iso(T0 + Math.floor(random() * 300 * 86_400_000)),
      metadata: null,
      seen_run: 1,
    });
    return id;
  };
  const member = (group_id: string, member_type: PrincipalType, member_id: string): void => {
    members.push({ group_id, member_type, member_id });
  };
  const addUsers = (gid: string, count: number): void => {
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(Math.floor(random() * userCount));
    for (const n of chosen) member(gid, 'USER', userId(n));
  };
  const everyone = group('everyone', 'Everyone');
  const departments: string[] = [];
  for (let d = 0; d < DEPARTMENTS; d += 1) {
    const id = group(`dept-${d}`, `Department ${d}`);
    departments.push(id);
    member(everyone, 'GROUP', id);
    addUsers(id, 2 + Math.floor(random() * 4)); // heads of department, directly
  }
  const teams: string[] = [];
  let pagedGroups = 0;
  for (let t = 0; t < TEAMS; t += 1) {
    const id = group(`team-${t}`, `Team ${t}`);
    teams.push(id);
    member(departments[t % DEPARTMENTS] as string, 'GROUP', id);
    const big = t < BIG_TEAMS;
    const size = big ? 150 + Math.floor(random() * 250) : 10 + Math.floor(random() * 31);
    addUsers(id, size);
    // A fifth of the later teams nest an earlier one (depth up to everyone → dept → team → team ...).
    let direct = size;
    if (t >= DEPARTMENTS && random() < 0.2) {
      member(id, 'GROUP', teams[Math.floor(random() * (teams.length - 1))] as string);
      direct += 1;
    }
    if (direct > 100) pagedGroups += 1;
  }

  // Access lists, and real blobs behind the binary rows.
  const files: Array<Pick<FileRow, 'id'>> = await db('files').select('id').orderBy('id');
  const binaries: FileRow[] = await db('files').select('*').whereNotNull('blob_key').orderBy('id');
  const permissions: PermissionRow[] = [];
  let pagedPermissionFiles = 0;
  for (const file of files) {
    const entries = new Map<string, PrincipalType>();
    const roll = random();
    if (roll < 0.01) {
      entries.set(userId(Math.floor(random() * userCount)), 'USER');
    } else if (roll < 0.0105) {
      // Shared with a couple of hundred people one by one: the access list pages.
      const count = 120 + Math.floor(random() * 180);
      while (entries.size < count) entries.set(userId(Math.floor(random() * userCount)), 'USER');
      pagedPermissionFiles += 1;
    } else {
      entries.set(random() < 0.8 ? pick(teams) : pick(departments), 'GROUP');
      if (random() < 0.3) entries.set(random() < 0.1 ? everyone : pick(teams), 'GROUP');
      const extraUsers = random() < 0.4 ? 1 + Math.floor(random() * 3) : 0;
      for (let k = 0; k < extraUsers; k += 1) entries.set(userId(Math.floor(random() * userCount)), 'USER');
    }
    for (const [principal_id, principal_type] of entries) permissions.push({ file_id: file.id, principal_type, principal_id, action: 'VIEW' });
  }

  // A pool of distinct blobs per MIME type, shared out among the binary rows: the store dedupes by
  // content, a download costs the same whichever blob it streams, and 10,000 separate files would
  // add seconds of file-system writes to every staging.
  const pools = new Map<string, Array<{ key: string; sha256: string; sha1: string; size: number }>>();
  const distinct = Math.min(BLOBS, binaries.length);
  const mimeTypes = [...new Set(binaries.map((f) => f.mime_type))].sort();
  for (const mimeType of mimeTypes) {
    const pool: Array<{ key: string; sha256: string; sha1: string; size: number }> = [];
    for (let k = 0; k < Math.ceil(distinct / mimeTypes.length); k += 1) {
      pool.push(await blobs.put(blobContent(mimeType, BLOB_MIN + Math.floor(random() * (BLOB_MAX - BLOB_MIN + 1)), random)));
    }
    pools.set(mimeType, pool);
  }
  let blobBytes = 0;
  for (const pool of pools.values()) for (const blob of pool) blobBytes += blob.size;
  const updates: FileRow[] = binaries.map((file) => {
    const blob = pick(pools.get(file.mime_type) ?? []);
    const row: FileRow = { ...file, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size };
    return { ...row, wire_json: file.wire_json == null ? null : fileWireJson(row) };
  });

  await db.transaction(async (trx) => {
    // Served as staged: each user is its own person, each entry and member serves its own id.
    await insertChunks(
      trx,
      'users',
      users.map((u) => ({ ...u, person_id: u.id })),
    );
    await insertChunks(
      trx,
      'people',
      users.map(({ id, email, full_name, state, modified_at, metadata }) => ({ id, email, full_name, state, modified_at, metadata })),
    );
    await insertChunks(trx, 'groups', groups);
    await insertChunks(
      trx,
      'group_members',
      members.map((m) => ({ ...m, served_id: m.member_id })),
    );
    await insertChunks(
      trx,
      'file_permissions',
      permissions.map((p) => ({ ...p, served_id: p.principal_id })),
    );
    for (const row of updates) {
      await trx('files').where({ id: row.id }).update({ blob_key: row.blob_key, sha256: row.sha256, sha1: row.sha1, size: row.size, wire_json: row.wire_json });
    }
  });

  return {
    users: users.length,
    inactiveUsers,
    groups: groups.length,
    members: members.length,
    pagedGroups,
    permissions: permissions.length,
    pagedPermissionFiles,
    binaries: updates.length,
    blobs: [...pools.values()].reduce((n, pool) => n + pool.length, 0),
    blobBytes,
    ms: performance.now() - started,
  };
}
