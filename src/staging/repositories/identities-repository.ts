import type { Db } from '../database/create-db';
import type { Page, PageRequest } from '../read-path/page-query';
import { queryPage } from '../read-path/query-page';
import type { GroupRow, MemberRow, UserRow } from '../database/row-types';

export type UserField = 'id' | 'state' | 'modified';
export type GroupField = 'id' | 'modified';
/** Members are unique per (type, id) within a group: `type` orders, `id` breaks ties (see PermissionField). */
export type MemberField = 'type' | 'id';

const USER_COLUMNS: Readonly<Record<UserField, string>> = { id: 'id', state: 'state', modified: 'modified_at' };
const GROUP_COLUMNS: Readonly<Record<GroupField, string>> = { id: 'id', modified: 'modified_at' };
/** Members are served by `served_id` (the person an account belongs to, see people.ts), not the source's reference. */
const MEMBER_COLUMNS: Readonly<Record<MemberField, string>> = { type: 'm.member_type', id: 'm.served_id' };

export class IdentitiesRepository {
  constructor(private readonly db: Db) {}

  listUsers(page: PageRequest<UserField>): Promise<Page<UserRow>> {
    // One served user per person, whatever number of sources name them (see people.ts).
    return queryPage<UserRow, UserField>(this.db('people').select('id', 'email', 'full_name', 'state', 'modified_at', 'metadata'), page, USER_COLUMNS, 'id');
  }

  listGroups(page: PageRequest<GroupField>): Promise<Page<GroupRow>> {
    return queryPage<GroupRow, GroupField>(this.db('groups').select('id', 'name', 'created_at', 'modified_at', 'metadata'), page, GROUP_COLUMNS, 'id');
  }

  async groupExists(id: string): Promise<boolean> {
    return (await this.db('groups').where({ id }).first('id')) !== undefined;
  }

  /** Direct members only: sub-groups are GROUP entries, never expanded (the platform resolves nesting). */
  /**
   * Two accounts of one person in a group are one member (`distinct`); an inactive account's
   * membership serves nothing (its `served_id` is null).
   */
  async listMembers(groupId: string, page: PageRequest<MemberField>): Promise<Page<MemberRow>> {
    const query = this.db({ m: 'group_members' })
      .leftJoin({ u: 'people' }, function joinPeople() {
        this.on('u.id', '=', 'm.served_id').andOnVal('m.member_type', '=', 'USER');
      })
      .leftJoin({ g: 'groups' }, function joinGroups() {
        this.on('g.id', '=', 'm.served_id').andOnVal('m.member_type', '=', 'GROUP');
      })
      .distinct('m.member_type', 'm.served_id', this.db.raw('coalesce(u.full_name, g.name) as member_name'))
      .where('m.group_id', groupId)
      .whereNotNull('m.served_id');
    const result = await queryPage<MemberRow & { served_id: string }, MemberField>(query, page, MEMBER_COLUMNS, 'id');
    return {
      ...result,
      items: result.items.map((r) => ({ group_id: groupId, member_type: r.member_type, member_id: r.served_id, member_name: r.member_name ?? null })),
    };
  }
}
