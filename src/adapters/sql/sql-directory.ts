import type { AdapterContext, SyncEvent, UserRecord } from '../adapter';
import { directoryEvents } from '../directory-events';
import type { SqlCheckpoint } from './sql-checkpoint';
import type { SqlMapping } from './sql-mapping-schema';
import type { SqlReader } from './sql-reader';
import { attributesByOwner, groupRecords, rolesByUser, SqlRowError, userRecord, type Directory } from './sql-records';
import { idText, pick } from './sql-values';

/**
 * Users (with their roles and attributes) and groups (with direct members), read whole on every
 * run: they are small next to documents, and reading them whole is how removals are seen.
 */
export async function readDirectory(reader: SqlReader, mapping: SqlMapping): Promise<Directory> {
  const problems: Directory['problems'] = [];
  const users: UserRecord[] = [];
  if (mapping.users) {
    const roles = mapping.roles ? rolesByUser(await reader.all(mapping.roles), mapping.roles) : new Map<string, string[]>();
    const extra = mapping.users.attributeRows ? attributesByOwner(await reader.all(mapping.users.attributeRows), mapping.users.attributeRows) : undefined;
    const seen = new Set<string>();
    for (const row of await reader.all(mapping.users)) {
      const nativeId = idText(pick(row, mapping.users.id));
      try {
        if (nativeId !== undefined && seen.has(nativeId)) throw new SqlRowError(`user ${nativeId}: the id appears more than once`);
        const user = userRecord(row, mapping.users, roles.get(nativeId ?? ''), extra?.get(nativeId ?? ''));
        seen.add(user.nativeId);
        users.push(user);
      } catch (error) {
        problems.push({ kind: 'user', ...(nativeId !== undefined ? { nativeId } : {}), error: error as Error });
      }
    }
  }
  const userIds = new Set(users.map((u) => u.nativeId));
  const groups = mapping.groups ? groupRecords(await reader.all(mapping.groups), await reader.all(mapping.groups.members), mapping.groups, userIds) : [];
  return { users, groups, userIds, groupIds: new Set(groups.map((g) => g.nativeId)), problems };
}

/** Deletes for the users and groups a checkpoint lists that the directory no longer has (users whose rows could not be read are kept). */
export function* goneIdentities(dir: Directory, since: Pick<SqlCheckpoint, 'users' | 'groups'>): Generator<SyncEvent> {
  const unreadable = new Set(dir.problems.map((p) => p.nativeId));
  for (const nativeId of since.users) if (!dir.userIds.has(nativeId) && !unreadable.has(nativeId)) yield { type: 'delete', kind: 'user', nativeId };
  for (const nativeId of since.groups) if (!dir.groupIds.has(nativeId)) yield { type: 'delete', kind: 'group', nativeId };
}

/** The directory's users and groups, then what could not be read of it. */
export function* directoryAndProblemEvents(ctx: AdapterContext, dir: Directory): Generator<SyncEvent> {
  yield* directoryEvents(ctx.signal, dir);
  for (const p of dir.problems) yield { type: 'failure', kind: p.kind, ...(p.nativeId !== undefined ? { nativeId: p.nativeId } : {}), error: p.error };
}
