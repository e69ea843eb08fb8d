import { LARGE_PAGE } from '../crawl/crawl-gateway';
import { findGroupCycles } from '../access/effective-access';
import type { Principal } from '../crawl/crawl-record';
import { fail, pass, warn, type Finding } from '../finding';
import { outcome, plural, type CheckInput } from './check-input';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Groups that `start` reaches through nested GROUP members (itself excluded unless on a cycle). */
function reachableGroups(start: string, members: Map<string, readonly Principal[]>): Set<string> {
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
function usersAllListed(sub: string, direct: ReadonlySet<string>, members: Map<string, readonly Principal[]>): string[] | undefined {
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

/** Groups (members resolve, direct not flattened, cycles) and users (emails, inactive). */
export function identityChecks(input: CheckInput): Finding[] {
  const { crawl, access } = input;
  const userIds = new Set(crawl.users.map((u) => u.id));
  const groupIds = new Set(crawl.groups.map((g) => g.id));
  const members = new Map<string, readonly Principal[]>(crawl.groups.map((g) => [g.id, g.members?.entries ?? []]));

  const resolve: Finding[] = [];
  const flattened: Finding[] = [];
  let memberCount = 0;
  for (const g of crawl.groups) {
    const list = g.members;
    if (!list) continue;
    memberCount += list.entries.length;
    for (const m of list.entries) {
      const e = { url: list.url, field: 'value', value: m };
      if (m.type === 'USER' && !userIds.has(m.id))
        resolve.push(fail('groups.members-resolve', `Group ${g.id}: member USER ${m.id} is not served by /v1/users.`, e));
      else if (m.type === 'GROUP' && !groupIds.has(m.id))
        resolve.push(fail('groups.members-resolve', `Group ${g.id}: member GROUP ${m.id} is not served by /v1/groups.`, e));
      else if (m.type !== 'USER' && m.type !== 'GROUP')
        resolve.push(fail('groups.members-resolve', `Group ${g.id}: member type ${JSON.stringify(m.type)} is neither USER nor GROUP.`, e));
    }
    // Flattened: the group lists a sub-group AND every user that sub-group holds, directly.
    const direct = new Set(list.entries.filter((m) => m.type === 'USER').map((m) => m.id));
    for (const sub of list.entries) {
      if (sub.type !== 'GROUP' || sub.id === g.id || !groupIds.has(sub.id)) continue;
      const inner = usersAllListed(sub.id, direct, members);
      if (!inner || inner.length === 0) continue;
      if (reachableGroups(sub.id, members).has(g.id)) continue; // a cycle: reported by groups.cycles
      const message = `Group ${g.id} lists sub-group ${sub.id} and also, directly, all ${plural(inner.length, 'user')} of ${sub.id}: members look flattened (they must be direct; flattening overstates access).`;
      const e = { url: list.url, field: 'value', value: inner.slice(0, 10).join(', ') };
      flattened.push(inner.length >= 2 ? fail('groups.not-flattened', message, e) : warn('groups.not-flattened', message, e));
    }
  }
  const cycles = findGroupCycles(crawl.groups.map((g) => ({ id: g.id, members: { entries: g.members?.entries ?? [] } }))).map((c) =>
    warn('groups.cycles', `Groups ${c.join(' ⇄ ')} contain each other; the platform's handling of cycles is undocumented.`, {
      url: crawl.groups.find((g) => g.id === c[0])?.members?.url,
      field: 'value',
      value: c.join(', '),
    }),
  );

  const paged = crawl.listings
    .filter((l) => l.collection.startsWith('members:') && l.maxPageItems > LARGE_PAGE)
    .map((l) =>
      warn(
        'groups.members-paged',
        `${l.collection.slice('members:'.length)}: a page of ${l.maxPageItems.toLocaleString('en-US')} members; page large groups at 1,000–5,000 members with a nextLink.`,
        { url: l.firstUrl, field: 'value', value: l.maxPageItems },
      ),
    );

  const email: Finding[] = [];
  const byEmail = new Map<string, string[]>();
  for (const u of crawl.users) {
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
          url: crawl.users.find((u) => u.id === ids[0])?.url,
          field: 'primary_email_addr',
          value: address,
        }),
      );
  }
  const inactive = access.users.filter((u) => !u.active);
  return [
    ...outcome('groups.members-resolve', resolve, `all ${plural(memberCount, 'member')} of ${plural(crawl.groups.length, 'group')} resolve`),
    ...outcome('groups.not-flattened', flattened, 'no group repeats the users of a sub-group it lists'),
    ...outcome('groups.members-paged', paged, `no members page is longer than ${LARGE_PAGE.toLocaleString('en-US')}`),
    ...outcome('groups.cycles', cycles, 'no group contains itself'),
    ...outcome('users.email', email, `all ${plural(crawl.users.length, 'user')} have a well-formed email`),
    ...outcome('users.unique-email', unique, 'every email belongs to one user'),
    pass(
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
    ),
  ];
}
