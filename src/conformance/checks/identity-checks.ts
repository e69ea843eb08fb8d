import { LARGE_PAGE } from '../crawl/crawl-gateway';
import { findGroupCycles } from '../access/effective-access';
import type { GroupRecord, Principal, UserRecord } from '../crawl/crawl-record';
import { fail, pass, warn, type Finding } from '../finding';
import { outcome, plural, type CheckInput } from './check-input';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Each group's direct members, by group id. */
type Members = Map<string, readonly Principal[]>;

/** Groups that `start` reaches through nested GROUP members (itself excluded unless on a cycle). */
function reachableGroups(start: string, members: Members): Set<string> {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length) {
    const g = queue.pop() as string;
    for (const m of members.get(g) ?? []) {
      if (m.type === 'GROUP' && !seen.has(m.id)) {
        seen.add(m.id);
        queue.push(m.id);
      }
    }
  }
  return seen;
}

/**
 * The users `sub` holds (directly or nested) when every one of them is also in `direct`, else
 * undefined. Stops at the first user that is not, so the usual case costs almost nothing.
 */
function usersAllListed(sub: string, direct: ReadonlySet<string>, members: Members): string[] | undefined {
  const users = new Set<string>();
  const seen = new Set<string>([sub]);
  const queue = [sub];
  while (queue.length) {
    for (const m of members.get(queue.pop() as string) ?? []) {
      if (m.type === 'USER') {
        if (!direct.has(m.id)) return undefined;
        users.add(m.id);
      } else if (m.type === 'GROUP' && !seen.has(m.id)) {
        seen.add(m.id);
        queue.push(m.id);
      }
    }
  }
  return [...users];
}

/** Each member of `g` is a USER served by /v1/users or a GROUP served by /v1/groups. */
function unresolvedMembers(g: GroupRecord, userIds: ReadonlySet<string>, groupIds: ReadonlySet<string>): Finding[] {
  const list = g.members;
  if (!list) return [];
  const found: Finding[] = [];
  for (const m of list.entries) {
    const e = { url: list.url, field: 'value', value: m };
    if (m.type === 'USER' && !userIds.has(m.id))
      found.push(fail('groups.members-resolve', `Group ${g.id}: member USER ${m.id} is not served by /v1/users.`, e));
    else if (m.type === 'GROUP' && !groupIds.has(m.id))
      found.push(fail('groups.members-resolve', `Group ${g.id}: member GROUP ${m.id} is not served by /v1/groups.`, e));
    else if (m.type !== 'USER' && m.type !== 'GROUP')
      found.push(fail('groups.members-resolve', `Group ${g.id}: member type ${JSON.stringify(m.type)} is neither USER nor GROUP.`, e));
  }
  return found;
}

/** Flattened: the group lists a sub-group AND every user that sub-group holds, directly. */
function flattenedMembers(g: GroupRecord, groupIds: ReadonlySet<string>, members: Members): Finding[] {
  const list = g.members;
  if (!list) return [];
  const found: Finding[] = [];
  const direct = new Set(list.entries.filter((m) => m.type === 'USER').map((m) => m.id));
  for (const sub of list.entries) {
    if (sub.type !== 'GROUP' || sub.id === g.id || !groupIds.has(sub.id)) continue;
    const inner = usersAllListed(sub.id, direct, members);
    if (!inner || inner.length === 0) continue;
    if (reachableGroups(sub.id, members).has(g.id)) continue; // a cycle: reported by groups.cycles
    const message = `Group ${g.id} lists sub-group ${sub.id} and also, directly, all ${plural(inner.length, 'user')} of ${sub.id}: members look flattened (they must be direct; flattening overstates access).`;
    const e = { url: list.url, field: 'value', value: inner.slice(0, 10).join(', ') };
    found.push(inner.length >= 2 ? fail('groups.not-flattened', message, e) : warn('groups.not-flattened', message, e));
  }
  return found;
}

function groupCycles(groups: readonly GroupRecord[]): Finding[] {
  return findGroupCycles(groups.map((g) => ({ id: g.id, members: { entries: g.members?.entries ?? [] } }))).map((c) =>
    warn('groups.cycles', `Groups ${c.join(' ⇄ ')} contain each other; the platform's handling of cycles is undocumented.`, {
      url: groups.find((g) => g.id === c[0])?.members?.url,
      field: 'value',
      value: c.join(', '),
    }),
  );
}

/** Members lists served in one page too large for the platform to take comfortably. */
function unpagedMembers(listings: CheckInput['crawl']['listings']): Finding[] {
  return listings
    .filter((l) => l.collection.startsWith('members:') && l.maxPageItems > LARGE_PAGE)
    .map((l) =>
      warn(
        'groups.members-paged',
        `${l.collection.slice('members:'.length)}: a page of ${l.maxPageItems.toLocaleString('en-US')} members; page large groups at 1,000–5,000 members with a nextLink.`,
        { url: l.firstUrl, field: 'value', value: l.maxPageItems },
      ),
    );
}

/** Users without a well-formed email (`email`), and emails shared by several users (`unique`). */
function emailFindings(users: readonly UserRecord[]): { email: Finding[]; unique: Finding[] } {
  const email: Finding[] = [];
  const byEmail = new Map<string, string[]>();
  for (const u of users) {
    const e = { url: u.url, field: 'primary_email_addr', value: u.email ?? '(absent)' };
    if (typeof u.email !== 'string' || u.email.length === 0)
      email.push(fail('users.email', `User ${u.id} has no primary_email_addr; the platform maps users by email, so this user sees nothing.`, e));
    else if (!EMAIL.test(u.email)) email.push(fail('users.email', `User ${u.id}: primary_email_addr is not an email address.`, e));
    else byEmail.set(u.email.toLowerCase(), [...(byEmail.get(u.email.toLowerCase()) ?? []), u.id]);
  }
  const unique: Finding[] = [];
  for (const [address, ids] of byEmail) {
    if (ids.length > 1)
      unique.push(
        fail('users.unique-email', `Users ${ids.join(', ')} share ${address}; the platform cannot tell them apart.`, {
          url: users.find((u) => u.id === ids[0])?.url,
          field: 'primary_email_addr',
          value: address,
        }),
      );
  }
  return { email, unique };
}

/** Always a pass: how many users are inactive, which the access answers list apart. */
function inactiveUsers(access: CheckInput['access']): Finding {
  const inactive = access.users.filter((u) => !u.active);
  return pass(
    'users.inactive',
    inactive.length ? `${plural(inactive.length, 'inactive user')} (not counted as able to see; reported separately in access answers)` : 'no inactive users',
    inactive.length
      ? {
          field: 'state',
          value: inactive
            .slice(0, 20)
            .map((u) => u.email ?? u.id)
            .join(', '),
        }
      : {},
  );
}

/** Groups (members resolve, direct not flattened, cycles) and users (emails, inactive). */
export function identityChecks(input: CheckInput): Finding[] {
  const { crawl, access } = input;
  const userIds = new Set(crawl.users.map((u) => u.id));
  const groupIds = new Set(crawl.groups.map((g) => g.id));
  const members: Members = new Map(crawl.groups.map((g) => [g.id, g.members?.entries ?? []]));
  const memberCount = crawl.groups.reduce((n, g) => n + (g.members?.entries.length ?? 0), 0);
  const resolve = crawl.groups.flatMap((g) => unresolvedMembers(g, userIds, groupIds));
  const flattened = crawl.groups.flatMap((g) => flattenedMembers(g, groupIds, members));
  const { email, unique } = emailFindings(crawl.users);
  return [
    ...outcome('groups.members-resolve', resolve, `all ${plural(memberCount, 'member')} of ${plural(crawl.groups.length, 'group')} resolve`),
    ...outcome('groups.not-flattened', flattened, 'no group repeats the users of a sub-group it lists'),
    ...outcome('groups.members-paged', unpagedMembers(crawl.listings), `no members page is longer than ${LARGE_PAGE.toLocaleString('en-US')}`),
    ...outcome('groups.cycles', groupCycles(crawl.groups), 'no group contains itself'),
    ...outcome('users.email', email, `all ${plural(crawl.users.length, 'user')} have a well-formed email`),
    ...outcome('users.unique-email', unique, 'every email belongs to one user'),
    inactiveUsers(access),
  ];
}
