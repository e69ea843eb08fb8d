import { classifyEntry } from '../conformance/access/effective-access';
import type { Policy } from '../policies/policy-types';
import type { Db } from '../staging/database/create-db';
import { personIdOf } from '../staging/write-path/person-id';
import { cut, LIMIT_OFFSET, pageOf, type AnswerPage, type PageRequest } from './answer-page';
import { GrantPaths, preferredGrant, type GrantPath } from './grant-path';
import { chainBack, directGroupsOfAccounts, groupsAbove, groupsBelow, type Reached } from './group-walk';

/** A served user (a person: one per email, whatever number of sources' accounts). */
export interface ExplorerUser {
  id: string;
  email: string;
  name: string | null;
  active: boolean;
}

export interface FileAnswer {
  file: { id: string; name: string | null; status: string };
  /** A `GROUP *` entry: every user. */
  everyone: boolean;
  /** Active users who can see the file (this page), each with the grant path. */
  users: Array<ExplorerUser & { path: GrantPath }>;
  usersPage: AnswerPage;
  /** Inactive users the served entries reach (only `GROUP *` can): not counted as able to see. */
  inactive: Array<ExplorerUser & { path: GrantPath }>;
  inactivePage: AnswerPage;
  /**
   * Inactive source accounts the source's entries name, directly or through groups: the gateway
   * serves no entry for them (they would see the file on reactivation). At most `limit`.
   */
  inactiveAccounts: Array<{ id: string; email: string; source: string; path: GrantPath }>;
  /** Served entries naming no served user or group. */
  unresolved: Array<{ type: string; id: string }>;
}

export interface UserAnswer {
  user: ExplorerUser;
  /** The source accounts behind the user. */
  accounts: Array<{ id: string; source: string; active: boolean }>;
  /** Files an active user can see (this page); empty for an inactive one. */
  files: Array<{ id: string; name: string | null; path: GrantPath }>;
  /** For an inactive user: the files their accounts would see on reactivation (this page). */
  wouldSee: Array<{ id: string; name: string | null; path: GrantPath }>;
  page: AnswerPage;
}

export { EXPLORER_PAGE_DEFAULT, EXPLORER_PAGE_MAX, type AnswerPage, type PageRequest } from './answer-page';

interface PersonRow {
  id: string;
  email: string;
  full_name: string | null;
  state: string;
}

const toUser = (r: PersonRow): ExplorerUser => ({ id: r.id, email: r.email, name: r.full_name, active: r.state === 'Active' });

/**
 * The served users reached by a file's served entries: the groups its `GROUP` entries name, and
 * those nested in them at any depth (cycle-safe: `union`), then their `USER` members and the
 * entries' own users; every user when the file is open to everyone. `reach r cross join
 * group_members m` walks down from the few groups reached by `group_members (group_id, …)`: a plain
 * join left SQLite free to scan every membership of the type instead (10 times slower at 10,000
 * users, kit/bench/console-pages.ts).
 */
const GRANTED_TO_FILE = `with recursive reach(id) as (
  select p.served_id from file_permissions p join groups g on g.id = p.served_id where p.file_id = ? and p.principal_type = 'GROUP'
  union
  select m.served_id from reach r cross join group_members m where m.group_id = r.id and m.member_type = 'GROUP' and m.served_id is not null
), granted(id) as (
  select m.served_id from reach r cross join group_members m where m.group_id = r.id and m.member_type = 'USER' and m.served_id is not null
  union
  select p.served_id from file_permissions p where p.file_id = ? and p.principal_type = 'USER' and p.served_id is not null
  union
  select u.id from people u where 1 = ?
), accounts(id) as (
  select m.member_id from reach r cross join group_members m where m.group_id = r.id and m.member_type = 'USER' and m.served_id is null
  union
  select p.principal_id from file_permissions p where p.file_id = ? and p.principal_type = 'USER' and p.served_id is null
)`;

/**
 * The active files a user's accounts (of the given state) are granted: `GROUP *`, an entry naming
 * one of the accounts, or one naming a group the accounts are in, directly or through nesting:
 * the files are found from the access entries naming them (`file_permissions (served_id, …)`,
 * not by testing every file), ids only (from the `files (status, id)` index), so a count costs
 * what the user sees, not the size of the collection; names are read for the page shown.
 */
const GRANTED_TO_USER = `with recursive accounts(id) as (
  select a.id from users a where a.person_id = ? and a.state = ?
), anc(id) as (
  select m.group_id from accounts a cross join group_members m where m.member_id = a.id and m.member_type = 'USER'
  union
  select m.group_id from anc cross join group_members m where m.member_id = anc.id and m.member_type = 'GROUP' and m.served_id is not null
), visible(id) as (
  select f.id from files f where f.status = 'active' and f.id in (
    select p.file_id from file_permissions p where p.served_id = '*' and p.principal_type = 'GROUP'
    union
    select p.file_id from anc cross join file_permissions p where p.served_id = anc.id and p.principal_type = 'GROUP'
    union
    select p.file_id from accounts a cross join file_permissions p where p.principal_id = a.id and p.principal_type = 'USER')
)`;

/**
 * "Who can see this file, and why" and "what can this user see, and why", read from staging as the
 * gateway serves it: the same answers as `conformance who-can-see` / `what-can` (which compute them
 * from a crawl, conformance/access/effective-access.ts), with the grant path of each (the entry, the
 * chain of groups, the policy rule). SQL finds the sets and pages them; the chains are walked for
 * the page shown only.
 */
export class AccessExplorer {
  constructor(
    private readonly db: Db,
    /** Access policies by source, to name the rule behind a policy's groups. */
    private readonly policies: Readonly<Record<string, Policy>> = {},
  ) {}

  async whoCanSee(fileId: string, request: PageRequest = {}): Promise<FileAnswer | undefined> {
    const file = (await this.db('files').where({ id: fileId }).first('id', 'name', 'status')) as FileAnswer['file'] | undefined;
    if (!file) return undefined;
    const page = pageOf(request);
    const searchable = file.status === 'active';
    const entries = searchable ? await this.servedEntries(fileId) : { everyone: false, users: [], groups: [], unresolved: [], accounts: [] };
    const reach = await groupsBelow(this.db, entries.groups);
    const counts = await this.countGranted(fileId, entries.everyone, searchable);
    const answer: FileAnswer = {
      file,
      everyone: entries.everyone,
      users: [],
      usersPage: { ...page, total: counts.Active ?? 0 },
      inactive: [],
      inactivePage: { ...page, total: counts.Inactive ?? 0 },
      inactiveAccounts: [],
      unresolved: entries.unresolved,
    };
    if (!searchable) return answer;
    const paths = new GrantPaths(this.db, this.policies);
    for (const state of ['Active', 'Inactive'] as const) {
      const read = cut(await this.grantedPersons(fileId, entries.everyone, state, page), page);
      const persons = read.rows;
      (state === 'Active' ? answer.usersPage : answer.inactivePage).next = read.next;
      // Only active accounts are served as members: an inactive person is reached by `GROUP *` alone.
      const found = await this.pathsToFile(
        paths,
        reach,
        entries,
        persons.map((p) => p.id),
      );
      const list = persons.map((p) => ({ ...toUser(p), path: found.get(p.id) as GrantPath }));
      if (state === 'Active') answer.users = list;
      else answer.inactive = list;
    }
    answer.inactiveAccounts = await this.inactiveAccounts(fileId, entries, reach, paths, page.limit);
    return answer;
  }

  async whatCanSee(ref: string, request: PageRequest = {}): Promise<UserAnswer | undefined> {
    const person = await this.findPerson(ref);
    if (!person) return undefined;
    const user = toUser(person);
    const state = user.active ? 'Active' : 'Inactive';
    const accountRows = (await this.db('users').where({ person_id: person.id }).orderBy('id').select('id', 'source', 'state')) as Array<{
      id: string;
      source: string;
      state: string;
    }>;
    const accounts = accountRows.map((a) => ({ id: a.id, source: a.source, active: a.state === 'Active' }));
    const granting = accountRows.filter((a) => a.state === state).map((a) => a.id);
    const bindings = [person.id, state];
    const page = pageOf(request);
    const keyset = page.after === undefined ? { sql: '', bindings: [] } : { sql: 'where v.id > ?', bindings: [page.after] };
    // The total and the page in one statement: the set is found once (a CTE used twice is computed
    // once), and names are read for the page's ids only.
    const found = rowsOf<{ id: string; name: string | null; total: number | string }>(
      await this.db.raw(
        `${GRANTED_TO_USER} select v.id, f.name, (select count(*) from visible) as total from (select v.id from visible v ${keyset.sql} order by v.id ${LIMIT_OFFSET}) v join files f on f.id = v.id order by v.id`,
        [...bindings, ...keyset.bindings, page.limit + 1, page.offset],
      ),
    );
    page.total = found.length
      ? Number(found[0]?.total)
      : Number(firstRow<{ n: number | string }>(await this.db.raw(`${GRANTED_TO_USER} select count(*) as n from visible`, bindings))?.n ?? 0);
    const read = cut(found, page);
    const rows = read.rows;
    page.next = read.next;
    const direct = await directGroupsOfAccounts(this.db, granting);
    const anc = await groupsAbove(this.db, [...new Set([...direct.values()].flat())].sort());
    const files = await this.pathsFromUser(
      rows.map((r) => r.id),
      new Set(granting),
      anc,
    );
    const listed = rows.map((r) => ({ id: r.id, name: r.name, path: files.get(r.id) as GrantPath }));
    return { user, accounts, files: user.active ? listed : [], wouldSee: user.active ? [] : listed, page };
  }

  /** A person by served id, by email (compared normalised), or by one of their accounts' ids. */
  private async findPerson(ref: string): Promise<PersonRow | undefined> {
    const columns = ['id', 'email', 'full_name', 'state'];
    const byId = (id: string) =>
      this.db('people')
        .where({ id })
        .first(...columns) as Promise<PersonRow | undefined>;
    const account = (await this.db('users').where({ id: ref }).first('person_id')) as { person_id: string | null } | undefined;
    return (
      (await byId(ref)) ??
      (ref.includes('@') ? await byId(personIdOf(ref, ref)) : undefined) ??
      (account?.person_id ? await byId(account.person_id) : undefined)
    );
  }

  /** The file's served entries sorted by kind, as the platform evaluates them; and the source's entries naming inactive accounts. */
  private async servedEntries(fileId: string) {
    const rows = (await this.db('file_permissions')
      .where({ file_id: fileId })
      .orderBy(['principal_type', 'principal_id'])
      .select('principal_type', 'principal_id', 'served_id')) as Array<{ principal_type: string; principal_id: string; served_id: string | null }>;
    const served = [...new Map(rows.filter((r) => r.served_id !== null).map((r) => [`${r.principal_type} ${r.served_id}`, r])).values()];
    const known = async (table: 'people' | 'groups', ids: string[]) =>
      new Set(ids.length ? ((await this.db(table).whereIn('id', ids).pluck('id')) as string[]) : []);
    const kinds = served.map((r) => ({
      type: r.principal_type,
      id: r.served_id as string,
      kind: classifyEntry({ type: r.principal_type, id: r.served_id as string, action: 'VIEW' }),
    }));
    const people = await known(
      'people',
      kinds.filter((k) => k.kind === 'user').map((k) => k.id),
    );
    const groups = await known(
      'groups',
      kinds.filter((k) => k.kind === 'group').map((k) => k.id),
    );
    const resolved = (k: (typeof kinds)[number]) => (k.kind === 'user' ? people.has(k.id) : k.kind === 'group' ? groups.has(k.id) : k.kind === 'wildcard');
    return {
      everyone: kinds.some((k) => k.kind === 'wildcard'),
      users: kinds.filter((k) => k.kind === 'user' && resolved(k)).map((k) => k.id),
      groups: kinds.filter((k) => k.kind === 'group' && resolved(k)).map((k) => k.id),
      unresolved: kinds.filter((k) => !resolved(k)).map((k) => ({ type: k.type, id: k.id })),
      accounts: rows.filter((r) => r.principal_type === 'USER' && r.served_id === null).map((r) => r.principal_id),
    };
  }

  private async countGranted(fileId: string, everyone: boolean, searchable: boolean): Promise<Record<string, number>> {
    if (!searchable) return {};
    const rows = rowsOf<{ state: string; n: number | string }>(
      await this.db.raw(`${GRANTED_TO_FILE} select u.state, count(*) as n from people u where u.id in (select id from granted) group by u.state`, [
        fileId,
        fileId,
        everyone ? 1 : 0,
        fileId,
      ]),
    );
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  /** One page (and one more row) of the persons of `state` granted the file, by email then id; after the person `page.after` when given. */
  private async grantedPersons(fileId: string, everyone: boolean, state: string, page: AnswerPage): Promise<PersonRow[]> {
    const keyset =
      page.after === undefined ? { sql: '', bindings: [] } : { sql: 'and (u.email > c.email or (u.email = c.email and u.id > c.id))', bindings: [page.after] };
    const from = page.after === undefined ? 'people u' : 'people u join people c on c.id = ?';
    return rowsOf<PersonRow>(
      await this.db.raw(
        `${GRANTED_TO_FILE} select u.id, u.email, u.full_name, u.state from ${from} where u.state = ? and u.id in (select id from granted) ${keyset.sql} order by u.email, u.id ${LIMIT_OFFSET}`,
        [fileId, fileId, everyone ? 1 : 0, fileId, ...keyset.bindings, state, page.limit + 1, page.offset],
      ),
    );
  }

  /** Inactive source accounts the file's entries name (directly or through its groups), at most `limit`. */
  private async inactiveAccounts(
    fileId: string,
    entries: { accounts: string[] },
    reach: ReadonlyMap<string, Reached>,
    paths: GrantPaths,
    limit: number,
  ): Promise<FileAnswer['inactiveAccounts']> {
    const rows = rowsOf<{ id: string; email: string; source: string }>(
      await this.db.raw(
        `${GRANTED_TO_FILE} select a.id, a.email, a.source from users a where a.state = 'Inactive' and a.id in (select id from accounts) order by a.email, a.id limit ?`,
        [fileId, fileId, 0, fileId, limit],
      ),
    );
    const direct = new Set(entries.accounts);
    const byAccount = await directGroupsOfAccounts(
      this.db,
      rows.map((r) => r.id),
    );
    const chains = rows.map((r) => (direct.has(r.id) ? [] : shortestChain(reach, byAccount.get(r.id) ?? [])));
    await paths.load(chains);
    return rows.map((r, i) => {
      const chain = chains[i] as string[];
      const entry = chain.length ? { type: 'GROUP' as const, id: chain[0] as string } : { type: 'USER' as const, id: r.id };
      return { ...r, path: paths.path(entry, chain) };
    });
  }

  /** The preferred grant path to the file of each person (by id): their own entry, a chain from a group entry, or the wildcard. */
  private async pathsToFile(
    paths: GrantPaths,
    reach: ReadonlyMap<string, Reached>,
    entries: { everyone: boolean; users: string[] },
    ids: string[],
  ): Promise<Map<string, GrantPath>> {
    const accounts = ids.length
      ? ((await this.db('users').whereIn('person_id', ids).andWhere('state', 'Active').select('id', 'person_id')) as Array<{ id: string; person_id: string }>)
      : [];
    const byAccount = await directGroupsOfAccounts(
      this.db,
      accounts.map((a) => a.id),
    );
    const groupsOf = new Map<string, string[]>();
    for (const a of accounts) groupsOf.set(a.person_id, [...(groupsOf.get(a.person_id) ?? []), ...(byAccount.get(a.id) ?? [])]);
    const chains = new Map(ids.map((id) => [id, shortestChain(reach, groupsOf.get(id) ?? [])]));
    await paths.load([...chains.values()]);
    const own = new Set(entries.users);
    const out = new Map<string, GrantPath>();
    for (const id of ids) {
      const chain = chains.get(id) as string[];
      const candidates: GrantPath[] = [];
      if (own.has(id)) candidates.push(paths.path({ type: 'USER', id }, []));
      if (chain.length) candidates.push(paths.path({ type: 'GROUP', id: chain[0] as string }, chain));
      if (entries.everyone) candidates.push(paths.path({ type: 'GROUP', id: '*' }, []));
      const best = preferredGrant(candidates);
      if (best) out.set(id, best);
    }
    return out;
  }

  /** The preferred grant path of each file (by id) to a user's accounts, whose groups are `anc` (walked up from the user). */
  private async pathsFromUser(fileIds: string[], accounts: ReadonlySet<string>, anc: ReadonlyMap<string, Reached>): Promise<Map<string, GrantPath>> {
    const rows = fileIds.length
      ? ((await this.db('file_permissions').whereIn('file_id', fileIds).select('file_id', 'principal_type', 'principal_id', 'served_id')) as Array<{
          file_id: string;
          principal_type: string;
          principal_id: string;
          served_id: string | null;
        }>)
      : [];
    const paths = new GrantPaths(this.db, this.policies);
    const candidates = new Map<string, Array<{ entry: GrantPath['entry']; chain: string[] }>>();
    for (const r of rows) {
      const add = (entry: GrantPath['entry'], chain: string[]) => candidates.set(r.file_id, [...(candidates.get(r.file_id) ?? []), { entry, chain }]);
      if (r.principal_type === 'USER' && accounts.has(r.principal_id)) add({ type: 'USER', id: r.served_id ?? r.principal_id }, []);
      else if (r.principal_type === 'GROUP' && r.served_id === '*') add({ type: 'GROUP', id: '*' }, []);
      else if (r.principal_type === 'GROUP' && r.served_id !== null && anc.has(r.served_id))
        add({ type: 'GROUP', id: r.served_id }, chainBack(anc, r.served_id));
    }
    await paths.load([...candidates.values()].flat().map((c) => c.chain));
    const out = new Map<string, GrantPath>();
    for (const [fileId, list] of candidates) {
      const best = preferredGrant(list.map((c) => paths.path(c.entry, c.chain)));
      if (best) out.set(fileId, best);
    }
    return out;
  }
}

/** The shortest chain from an entry's group down to one of `direct` (groups listing the user), entry first; empty when none is reached. */
function shortestChain(reach: ReadonlyMap<string, Reached>, direct: readonly string[]): string[] {
  const inReach = direct.filter((g) => reach.has(g)).sort((a, b) => (reach.get(a) as Reached).depth - (reach.get(b) as Reached).depth || a.localeCompare(b));
  return inReach.length ? chainBack(reach, inReach[0] as string).reverse() : [];
}

/** Rows of `db.raw`: SQLite answers an array, Postgres a result with `rows`. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

function firstRow<T>(result: unknown): T | undefined {
  return rowsOf<T>(result)[0];
}
