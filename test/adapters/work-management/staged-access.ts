import type { Db } from '../../../src/staging/database/create-db';

/**
 * Who the gateway lets see each active file of a source, computed from the staged rows alone
 * the way the platform does: a file's USER entries, plus every user reached through its GROUP
 * entries by expanding `group_members` (nested groups, cycle-safe), plus everyone for `GROUP *`;
 * only Active users count. Keys and values are native ids (the `<source>:` prefix removed).
 */
export async function stagedAccess(db: Db, source: string): Promise<Map<string, Set<string>>> {
  const prefix = `${source}:`;
  const strip = (id: string): string => (id.startsWith(prefix) ? id.slice(prefix.length) : id);
  const users = (await db('users').where({ source }).select('id', 'state')) as Array<{ id: string; state: string }>;
  const active = new Set(users.filter((u) => u.state === 'Active').map((u) => u.id));
  const groupIds = db('groups').where({ source }).select('id');
  const rows = (await db('group_members').whereIn('group_id', groupIds).select('group_id', 'member_type', 'member_id')) as Array<{
    group_id: string;
    member_type: string;
    member_id: string;
  }>;
  const members = new Map<string, Array<{ type: string; id: string }>>();
  for (const r of rows) members.set(r.group_id, [...(members.get(r.group_id) ?? []), { type: r.member_type, id: r.member_id }]);

  const expanded = new Map<string, Set<string>>();
  /** Users of a group and of every group nested in it; a group met again on the way is not walked twice. */
  const expand = (group: string): Set<string> => {
    const cached = expanded.get(group);
    if (cached) return cached;
    const out = new Set<string>();
    const seen = new Set<string>([group]);
    const stack = [group];
    while (stack.length > 0) {
      const g = stack.pop() as string;
      for (const m of members.get(g) ?? []) {
        if (m.type === 'USER') out.add(m.id);
        else if (!seen.has(m.id)) {
          seen.add(m.id);
          stack.push(m.id);
        }
      }
    }
    expanded.set(group, out);
    return out;
  };

  const files = (await db('files').where({ source, status: 'active' }).select('id')) as Array<{ id: string }>;
  const permissions = (await db('file_permissions')
    .whereIn('file_id', db('files').where({ source, status: 'active' }).select('id'))
    .select('file_id', 'principal_type', 'principal_id')) as Array<{
    file_id: string;
    principal_type: string;
    principal_id: string;
  }>;
  const access = new Map<string, Set<string>>(files.map((f) => [f.id, new Set<string>()]));
  for (const p of permissions) {
    const set = access.get(p.file_id);
    if (!set) continue;
    if (p.principal_type === 'USER') set.add(p.principal_id);
    else if (p.principal_id === '*') for (const u of active) set.add(u);
    else for (const u of expand(p.principal_id)) set.add(u);
  }
  return new Map([...access].map(([file, who]) => [strip(file), new Set([...who].filter((u) => active.has(u)).map(strip))]));
}

/** Native ids of a source's files by status. */
export async function stagedFiles(db: Db, source: string): Promise<{ active: Set<string>; deleted: Set<string> }> {
  const rows = (await db('files').where({ source }).select('native_id', 'status')) as Array<{ native_id: string; status: string }>;
  return {
    active: new Set(rows.filter((r) => r.status === 'active').map((r) => r.native_id)),
    deleted: new Set(rows.filter((r) => r.status === 'deleted').map((r) => r.native_id)),
  };
}
