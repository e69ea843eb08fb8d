import { chunks } from '../../lib/chunks';
import type { Db } from '../database/create-db';
import { parseJsonObject } from '../../lib/parse-json-object';
import { personIdOf } from '../write-path/person-id';
import { globalId } from '../../wire/global-id';

/** A group an access policy synthesized (native id `policy-…`), as staged by an earlier run. */
export interface StagedPolicyGroup {
  nativeId: string;
  metadata: Record<string, unknown> | undefined;
  /** Native ids of its USER members (of this source). */
  userMembers: string[];
}

/** Reads back what earlier runs staged of a source's policy groups: incremental runs and `policy explain` start from it. */
export class PolicyGroupsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The source's groups whose native id starts with one of `prefixes` (case-sensitively: SQLite's
   * LIKE ignores case, and a source's own group such as `Policy-U-board` or `policy-team` is not
   * one the policy synthesized).
   */
  async load(source: string, prefixes: readonly string[]): Promise<StagedPolicyGroup[]> {
    const found = (await this.db('groups')
      .where({ source })
      .andWhere((q) => {
        for (const prefix of prefixes) q.orWhere('native_id', 'like', `${prefix}%`);
      })
      .orderBy('id')
      .select('id', 'native_id', 'metadata')) as Array<{ id: string; native_id: string; metadata: string | null }>;
    const rows = found.filter((r) => prefixes.some((p) => r.native_id.startsWith(p)));
    const members = new Map<string, string[]>();
    for (const part of chunks(
      rows.map((r) => r.id),
      200,
    )) {
      const found = (await this.db('group_members as m')
        .leftJoin('users as u', 'u.id', 'm.member_id')
        .whereIn('m.group_id', part)
        .andWhere('m.member_type', 'USER')
        .select('m.group_id', 'm.member_id', 'u.native_id', 'u.source')) as Array<{
        group_id: string;
        member_id: string;
        native_id: string | null;
        source: string | null;
      }>;
      for (const m of found) {
        const nativeId =
          m.source === source && m.native_id !== null ? m.native_id : m.member_id.startsWith(`${source}:`) ? m.member_id.slice(source.length + 1) : undefined;
        if (nativeId === undefined) continue;
        const list = members.get(m.group_id) ?? [];
        list.push(nativeId);
        members.set(m.group_id, list);
      }
    }
    return rows.map((r) => ({ nativeId: r.native_id, metadata: parseJsonObject(r.metadata), userMembers: members.get(r.id) ?? [] }));
  }

  /** Staged file id → the policy group its access list names (native id), for the source's active files. */
  async fileGroups(source: string, prefix: string): Promise<Map<string, string>> {
    const rows = (await this.db('file_permissions as p')
      .join('files as f', 'f.id', 'p.file_id')
      .where('f.source', source)
      .andWhere('p.principal_type', 'GROUP')
      .andWhere('p.principal_id', 'like', `${source}:${prefix}%`)
      .select('p.file_id', 'p.principal_id')) as Array<{ file_id: string; principal_id: string }>;
    // LIKE ignores case on SQLite: a source's own `POLICY-D-…` group is not the policy's.
    return new Map(rows.filter((r) => r.principal_id.startsWith(`${source}:${prefix}`)).map((r) => [r.file_id, r.principal_id.slice(source.length + 1)]));
  }

  /** A staged file with its access entries (global ids), for `policy explain`. */
  async file(id: string): Promise<{ id: string; source: string; status: string; access: Array<{ type: string; id: string }> } | undefined> {
    const row = (await this.db('files').where({ id }).first('id', 'source', 'status')) as { id: string; source: string; status: string } | undefined;
    if (!row) return undefined;
    const access = (await this.db('file_permissions')
      .where({ file_id: id })
      .orderBy(['principal_type', 'principal_id'])
      .select('principal_type', 'principal_id')) as Array<{ principal_type: string; principal_id: string }>;
    return { ...row, access: access.map((a) => ({ type: a.principal_type, id: a.principal_id })) };
  }

  /**
   * Staged accounts of `source` that `ref` names: the account id, the served person id (what the
   * platform knows), or an email in any case or Unicode form (it names the person, as served).
   */
  async users(source: string, ref: string): Promise<Array<{ id: string; email: string; state: string }>> {
    const persons = [ref, ...(ref.includes('@') ? [personIdOf(ref, ref)] : [])];
    return (await this.db('users')
      .where({ source })
      .andWhere((q) => q.where('id', ref).orWhereIn('person_id', persons).orWhereRaw('lower(email) = ?', [ref.toLowerCase()]))
      .orderBy('id')
      .select('id', 'email', 'state')) as Array<{ id: string; email: string; state: string }>;
  }

  /** The policy groups (native ids) of `source` that list `userId` as a direct member. */
  async groupsOfUser(source: string, userId: string): Promise<string[]> {
    const rows = (await this.db('group_members')
      .where({ member_type: 'USER', member_id: userId })
      .andWhere('group_id', 'like', `${source}:policy-%`)
      .orderBy('group_id')
      .select('group_id')) as Array<{ group_id: string }>;
    return rows.map((r) => r.group_id.slice(source.length + 1));
  }

  async group(source: string, nativeId: string): Promise<Record<string, unknown> | undefined> {
    const row = (await this.db('groups')
      .where({ id: globalId(source, nativeId) })
      .first('metadata')) as { metadata: string | null } | undefined;
    return row ? (parseJsonObject(row.metadata) ?? {}) : undefined;
  }
}
