import { normalizeEmail } from '../../lib/normalize-email';
import type { CrawlRecord, Principal } from '../crawl/crawl-record';

/**
 * Who can see what, computed from a crawl the way the platform evaluates it (reference §3.2): a
 * user sees a file when an entry names them (`USER <id>`), names a group they belong to directly
 * or through any chain of nested groups (`GROUP <id>`), or is the wildcard `GROUP *` (every user).
 * Only `VIEW` entries count; `USER *` grants nothing (the platform ignores it); entries naming no
 * served user or group grant nothing. Nesting is expanded cycle-safely.
 *
 * Inactive users (`state: "Inactive"`) do NOT count as able to see: the platform resolves access
 * through identities it can map, and a deactivated account has no session to search from. They
 * are reported separately (`inactive`) so a grant that would apply on reactivation stays visible.
 * Deleted files (`status: "deleted"`) are not searchable: `whatCanSee` leaves them out.
 */

export interface AccessInput {
  users: ReadonlyArray<{ id: string; email?: unknown; fullName?: unknown; state?: unknown }>;
  groups: ReadonlyArray<{ id: string; name?: unknown; members?: { entries: readonly Principal[] } }>;
  files: ReadonlyArray<{ id: string; name?: unknown; status?: unknown; permissions: readonly Principal[] }>;
}

export interface AccessUser {
  id: string;
  email?: string;
  name?: string;
  active: boolean;
}

export interface FileAccess {
  file: { id: string; name?: string; status?: string };
  /** A `GROUP *` entry: every active user. */
  everyone: boolean;
  /** Active users who can see the file, each with the entry that grants it. */
  users: Array<AccessUser & { via: string }>;
  /** Inactive users the entries reach (not counted as able to see). */
  inactive: Array<AccessUser & { via: string }>;
  /** Entries naming no served user or group. */
  unresolved: Principal[];
  /** Entries the platform does not evaluate: `USER *`, an action other than VIEW, an unknown type. */
  ignored: Principal[];
}

export interface UserAccess {
  /** The users the question matched (an email shared by several users matches them all). */
  users: AccessUser[];
  /** False when every matched user is inactive: then `files` is empty and `wouldSee` lists the grants. */
  active: boolean;
  files: Array<{ id: string; name?: string; via: string }>;
  /** For inactive users: what they would see if reactivated. */
  wouldSee: Array<{ id: string; name?: string; via: string }>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function isInactive(state: unknown): boolean {
  return typeof state === 'string' && state.toLowerCase() === 'inactive';
}

/** What the platform evaluates of an access entry: the wildcard, a user, a group, or nothing. */
export function classifyEntry(p: Principal): 'wildcard' | 'user' | 'group' | 'ignored' {
  if (p.action !== 'VIEW') return 'ignored';
  if (p.type === 'GROUP') return p.id === '*' ? 'wildcard' : 'group';
  if (p.type === 'USER') return p.id === '*' ? 'ignored' : 'user';
  return 'ignored';
}

/** The access input of a recorded crawl. */
export function accessInputFromCrawl(crawl: Pick<CrawlRecord, 'users' | 'groups' | 'files'>): AccessInput {
  return {
    users: crawl.users,
    groups: crawl.groups.map((g) => ({ id: g.id, name: g.name, members: { entries: g.members?.entries ?? [] } })),
    files: crawl.files.map((f) => ({ id: f.listing.id, name: f.listing.name, status: f.listing.status, permissions: f.permissions?.entries ?? [] })),
  };
}

/**
 * Strongly connected sets of groups that contain each other (directly or through nesting), and
 * groups that contain themselves. Iterative Tarjan, so deep nesting cannot overflow the stack.
 */
export function findGroupCycles(groups: AccessInput['groups']): string[][] {
  const edges = new Map<string, string[]>();
  for (const g of groups)
    edges.set(
      g.id,
      (g.members?.entries ?? []).filter((m) => m.type === 'GROUP').map((m) => m.id),
    );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const children = edges.get(frame.node) ?? [];
      if (frame.next < children.length) {
        const child = children[frame.next++] as string;
        if (!edges.has(child)) continue;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, next: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(child) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const n = stack.pop() as string;
          onStack.delete(n);
          component.push(n);
          if (n === frame.node) break;
        }
        const selfLoop = component.length === 1 && (edges.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

export class EffectiveAccess {
  private readonly usersById = new Map<string, AccessUser>();
  private readonly usersByEmail = new Map<string, AccessUser[]>();
  private readonly membersByGroup = new Map<string, readonly Principal[]>();
  /** `USER id` / `GROUP id` → groups that list it directly. */
  private readonly parents = new Map<string, string[]>();
  private readonly filesById = new Map<string, AccessInput['files'][number]>();
  private readonly closureCache = new Map<string, ReadonlySet<string>>();
  private readonly ancestorCache = new Map<string, ReadonlySet<string>>();

  constructor(input: AccessInput) {
    for (const u of input.users) {
      if (this.usersById.has(u.id)) continue;
      const user: AccessUser = { id: u.id, active: !isInactive(u.state) };
      const email = str(u.email);
      const name = str(u.fullName);
      if (email) user.email = email;
      if (name) user.name = name;
      this.usersById.set(u.id, user);
      if (email) {
        const key = normalizeEmail(email);
        this.usersByEmail.set(key, [...(this.usersByEmail.get(key) ?? []), user]);
      }
    }
    for (const g of input.groups) {
      if (this.membersByGroup.has(g.id)) continue;
      const members = g.members?.entries ?? [];
      this.membersByGroup.set(g.id, members);
      for (const m of members) {
        if (m.type !== 'USER' && m.type !== 'GROUP') continue;
        const key = `${m.type} ${m.id}`;
        const list = this.parents.get(key);
        if (list) list.push(g.id);
        else this.parents.set(key, [g.id]);
      }
    }
    for (const f of input.files) if (!this.filesById.has(f.id)) this.filesById.set(f.id, f);
  }

  get users(): AccessUser[] {
    return [...this.usersById.values()];
  }

  get fileIds(): string[] {
    return [...this.filesById.keys()];
  }

  hasGroup(id: string): boolean {
    return this.membersByGroup.has(id);
  }

  user(id: string): AccessUser | undefined {
    return this.usersById.get(id);
  }

  /** Users matching an email (compared normalised: case, Unicode form, spaces), or else a user id. */
  findUsers(emailOrId: string): AccessUser[] {
    const byEmail = this.usersByEmail.get(normalizeEmail(emailOrId));
    if (byEmail) return byEmail;
    const byId = this.usersById.get(emailOrId);
    return byId ? [byId] : [];
  }

  /** User ids reachable from a group through any chain of nested groups (cycle-safe). */
  usersInGroup(groupId: string): ReadonlySet<string> {
    const cached = this.closureCache.get(groupId);
    if (cached) return cached;
    const users = new Set<string>();
    const seen = new Set<string>([groupId]);
    const queue = [groupId];
    while (queue.length) {
      const g = queue.pop() as string;
      for (const m of this.membersByGroup.get(g) ?? []) {
        if (m.type === 'USER') users.add(m.id);
        else if (m.type === 'GROUP' && !seen.has(m.id)) {
          seen.add(m.id);
          queue.push(m.id);
        }
      }
    }
    this.closureCache.set(groupId, users);
    return users;
  }

  /** Groups a user belongs to, directly or through nesting (cycle-safe). */
  groupsOfUser(userId: string): ReadonlySet<string> {
    const cached = this.ancestorCache.get(userId);
    if (cached) return cached;
    const groups = new Set<string>();
    const queue = [...(this.parents.get(`USER ${userId}`) ?? [])];
    for (const g of queue) groups.add(g);
    while (queue.length) {
      const g = queue.pop() as string;
      for (const parent of this.parents.get(`GROUP ${g}`) ?? []) {
        if (!groups.has(parent)) {
          groups.add(parent);
          queue.push(parent);
        }
      }
    }
    this.ancestorCache.set(userId, groups);
    return groups;
  }

  whoCanSee(fileId: string): FileAccess | undefined {
    const file = this.filesById.get(fileId);
    if (!file) return undefined;
    const out: FileAccess = { file: { id: file.id }, everyone: false, users: [], inactive: [], unresolved: [], ignored: [] };
    const name = str(file.name);
    const status = str(file.status);
    if (name) out.file.name = name;
    if (status) out.file.status = status;
    const via = new Map<string, string>();
    const grant = (userId: string, how: string) => {
      if (!via.has(userId) && this.usersById.has(userId)) via.set(userId, how);
    };
    for (const p of file.permissions) {
      const kind = classifyEntry(p);
      if (kind === 'ignored') out.ignored.push(p);
      else if (kind === 'wildcard') out.everyone = true;
      else if (kind === 'user') {
        if (this.usersById.has(p.id)) grant(p.id, `USER ${p.id}`);
        else out.unresolved.push(p);
      } else if (!this.membersByGroup.has(p.id)) out.unresolved.push(p);
      else for (const u of this.usersInGroup(p.id)) grant(u, `GROUP ${p.id}`);
    }
    if (out.everyone) for (const u of this.usersById.keys()) grant(u, 'GROUP *');
    for (const [userId, how] of via) {
      const user = this.usersById.get(userId) as AccessUser;
      (user.active ? out.users : out.inactive).push({ ...user, via: how });
    }
    const order = (a: AccessUser, b: AccessUser) => (a.email ?? a.id).localeCompare(b.email ?? b.id);
    out.users.sort(order);
    out.inactive.sort(order);
    return out;
  }

  /** How `userId` gets to see a file (the first granting entry), or undefined. Ignores `active`. */
  private grantOf(userId: string, permissions: readonly Principal[]): string | undefined {
    let groups: ReadonlySet<string> | undefined;
    for (const p of permissions) {
      const kind = classifyEntry(p);
      if (kind === 'wildcard') return 'GROUP *';
      if (kind === 'user' && p.id === userId) return `USER ${p.id}`;
      if (kind === 'group') {
        groups ??= this.groupsOfUser(userId);
        if (groups.has(p.id)) return `GROUP ${p.id}`;
      }
    }
    return undefined;
  }

  whatCanSee(emailOrId: string): UserAccess | undefined {
    const users = this.findUsers(emailOrId);
    if (users.length === 0) return undefined;
    const active = users.some((u) => u.active);
    const out: UserAccess = { users, active, files: [], wouldSee: [] };
    for (const file of this.filesById.values()) {
      if (file.status === 'deleted') continue;
      let how: string | undefined;
      let activeGrant = false;
      for (const u of [...users].sort((a, b) => Number(b.active) - Number(a.active))) {
        how = this.grantOf(u.id, file.permissions);
        if (how !== undefined) {
          activeGrant = u.active;
          break;
        }
      }
      if (how === undefined) continue;
      const entry: { id: string; name?: string; via: string } = { id: file.id, via: how };
      const name = str(file.name);
      if (name) entry.name = name;
      (activeGrant ? out.files : out.wouldSee).push(entry);
    }
    return out;
  }

  /** Whether an active user with this email (or id) can see the file. */
  canSee(emailOrId: string, fileId: string): boolean {
    const file = this.filesById.get(fileId);
    if (!file || file.status === 'deleted') return false;
    return this.findUsers(emailOrId).some((u) => u.active && this.grantOf(u.id, file.permissions) !== undefined);
  }

  /** The entry that grants access (for explanations), ignoring whether the user is active. */
  grantFor(emailOrId: string, fileId: string): string | undefined {
    const file = this.filesById.get(fileId);
    if (!file) return undefined;
    for (const u of this.findUsers(emailOrId)) {
      const g = this.grantOf(u.id, file.permissions);
      if (g) return g;
    }
    return undefined;
  }
}
