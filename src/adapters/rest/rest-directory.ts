import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type { AccessEntry, Principal, SyncEvent } from '../adapter';
import { principalsFromField, principalsFromRequest, resolveAccess, type AccessDeps } from './rest-access';
import type { ContainersStream, GroupsStream, Listing, UsersStream } from './rest-manifest';
import { paginate } from './rest-paginator';
import { asMember, dedupe, requiredText, optionalText, toUser } from './rest-records';

/** Every record a listing gives (its filter applied), read to the listing's natural end: any failed page throws. */
export async function listAll(listing: Listing, deps: AccessDeps, what: string, parent?: unknown): Promise<unknown[]> {
  const out: unknown[] = [];
  const options = { what, signal: deps.signal, ...(deps.maxPages ? { maxPages: deps.maxPages } : {}), ...(parent !== undefined ? { record: parent } : {}) };
  for await (const page of paginate(deps.requester, listing, options)) {
    for (const record of page.records) if (!listing.filter || (await deps.expressions.truth(listing.filter, record))) out.push(record);
  }
  return out;
}

/** Item events of a list, each record mapped with at most `concurrency` at once, in order; a record that fails becomes its own failure event. */
export async function* mapped<T>(records: readonly T[], concurrency: number, toEvent: (record: T) => Promise<SyncEvent>): AsyncGenerator<SyncEvent> {
  const pool = new ConcurrencyPool(concurrency);
  const window = concurrency * 4;
  for (let start = 0; start < records.length; start += window) {
    const part = records.slice(start, start + window).map((record) => pool.run(() => toEvent(record)));
    for (const event of part) yield await event;
  }
}

/**
 * The users stream: the whole listing is read before the first user is yielded, so a failed page
 * fails the run (nothing swept, staged users kept). A record that cannot be mapped is a failure.
 */
export async function* userEvents(stream: UsersStream, deps: AccessDeps): AsyncGenerator<SyncEvent> {
  const records = await listAll(stream, deps, 'streams.users');
  for (const record of records) {
    try {
      yield { type: 'user', user: await toUser(deps.expressions, stream.map, record, deps.dialect) };
    } catch (error) {
      const nativeId = await optionalText(deps.expressions, stream.map.id, record).catch(() => undefined);
      yield { type: 'failure', kind: 'user', ...(nativeId ? { nativeId } : {}), error: error as Error };
    }
  }
}

/**
 * The groups stream: the listing read whole (a failed page fails the run), then each group's
 * direct members read to their paginator's end. A group whose members cannot be read whole (a
 * failed page) is a failure event: the engine keeps its staged members, never a truncated list. A
 * member list read whole with entries that cannot be resolved (a type it does not know, no id,
 * everyone) is a failure with `membersAtMost`, the rest of the list: the engine narrows the staged
 * members to it, so a member the source removed does not keep access through the group.
 */
export async function* groupEvents(streams: GroupsStream | readonly GroupsStream[], deps: AccessDeps, concurrency: number): AsyncGenerator<SyncEvent> {
  for (const stream of Array.isArray(streams) ? streams : [streams]) yield* groupStreamEvents(stream as GroupsStream, deps, concurrency);
}

async function* groupStreamEvents(stream: GroupsStream, deps: AccessDeps, concurrency: number): AsyncGenerator<SyncEvent> {
  const records = await listAll(stream, deps, 'streams.groups');
  yield* mapped(records, concurrency, async (record): Promise<SyncEvent> => {
    let nativeId: string | undefined;
    try {
      nativeId = await requiredText(deps.expressions, stream.map.id, record, 'streams.groups.map.id');
      const name = await optionalText(deps.expressions, stream.map.name, record);
      const { members, unresolved } = await groupMembers(stream, record, deps, `streams.groups: group ${nativeId}`);
      const [first] = unresolved;
      if (first) return { type: 'failure', kind: 'group', nativeId, error: first, membersAtMost: members };
      return { type: 'group', group: { nativeId, ...(name !== undefined ? { name } : {}), members } };
    } catch (error) {
      return { type: 'failure', kind: 'group', ...(nativeId ? { nativeId } : {}), error: error as Error };
    }
  });
}

/** A group's direct members from each part of its `members` (any failed page throws), and the entries that could not be resolved as members. */
async function groupMembers(stream: GroupsStream, record: unknown, deps: AccessDeps, what: string): Promise<{ members: Principal[]; unresolved: Error[] }> {
  const entries: AccessEntry[] = [];
  const unresolved: Error[] = [];
  const { members } = stream;
  if (members?.field) entries.push(...(await principalsFromField(members.field, record, deps, 'streams.groups.members.field', unresolved)));
  if (members?.request) entries.push(...(await principalsFromRequest(members.request, record, deps, 'streams.groups.members.request', unresolved)));
  for (const [i, listing] of (members?.requests ?? []).entries())
    entries.push(...(await principalsFromRequest(listing, record, deps, `streams.groups.members.requests[${i}]`, unresolved)));
  const listed: Principal[] = [];
  for (const entry of entries) {
    try {
      listed.push(asMember(entry, what));
    } catch (error) {
      unresolved.push(error as Error);
    }
  }
  return { members: dedupe(listed) as Principal[], unresolved };
}

/**
 * Containers and their access, for documents to inherit. The listing is read whole (a failed page
 * fails the run); a container whose access cannot be read keeps the error, and every document
 * that inherits from it fails in turn (its staged access kept).
 */
export async function readContainers(stream: ContainersStream, deps: AccessDeps, concurrency: number): Promise<Map<string, readonly AccessEntry[] | Error>> {
  const records = await listAll(stream, deps, 'streams.containers');
  const pool = new ConcurrencyPool(concurrency);
  const entries = await Promise.all(
    records.map((record) =>
      pool.run(async (): Promise<[string, readonly AccessEntry[] | Error]> => {
        const id = await requiredText(deps.expressions, stream.map.id, record, 'streams.containers.map.id');
        try {
          return [id, await resolveAccess(stream.access, record, deps, 'streams.containers.access')];
        } catch (error) {
          return [id, error as Error];
        }
      }),
    ),
  );
  return new Map(entries);
}
