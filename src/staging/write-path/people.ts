import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { changeTime } from '../../lib/change-time';
import { chunks } from '../../lib/chunks';
import { insertRows } from './insert-rows';
import type { PrincipalType } from '../database/row-types';

/**
 * One person, one served user. Sources stage their accounts in `users` (`<source>:<native id>`,
 * each with the `person_id` its email maps to, see person-id.ts); the gateway serves `people`, one
 * row per person, made from that person's accounts. Access lists and group members keep the
 * reference the source gave (`principal_id`, `member_id`: an account) and are served through
 * `served_id`, kept here:
 *
 * - an active account's references serve its person, so every source's groups and access lists
 *   point at the one user;
 * - an inactive account's references serve nothing (`served_id` null): what a source revoked by
 *   removing someone is not kept alive by the person being active in another source, while what
 *   the other source grants stays;
 * - a reference to an account no source staged serves the reference as given, as before.
 *
 * A person is Active when any of its accounts is; its email, name and metadata come from its
 * first account (active ones first, then by id).
 */

export interface Ref {
  type: PrincipalType;
  id: string;
}

interface AccountState {
  id: string;
  person_id: string | null;
  state: string;
}

/** Ids per `where … in` statement. */
const IDS_PER_STATEMENT = 200;

/** The served id of a reference, given the accounts staged (see above). */
export function servedIdOf(ref: Ref, accounts: ReadonlyMap<string, AccountState>): string | null {
  if (ref.type !== 'USER') return ref.id;
  const account = accounts.get(ref.id);
  if (!account) return ref.id;
  return account.state === 'Active' ? (account.person_id ?? ref.id) : null;
}

async function loadAccounts(trx: Knex, ids: readonly string[]): Promise<Map<string, AccountState>> {
  const out = new Map<string, AccountState>();
  for (const part of chunks([...new Set(ids)], IDS_PER_STATEMENT)) {
    for (const row of (await trx('users').whereIn('id', part).select('id', 'person_id', 'state')) as AccountState[]) out.set(row.id, row);
  }
  return out;
}

/** The accounts the USER references among `refs` name, for `servedIdOf`. */
export function accountsReferenced(trx: Knex, refs: Iterable<Ref>): Promise<Map<string, AccountState>> {
  const ids: string[] = [];
  for (const ref of refs) if (ref.type === 'USER') ids.push(ref.id);
  return loadAccounts(trx, ids);
}

/** The persons these accounts belong to now (before a write re-points them). */
export async function personsOf(trx: Knex, accountIds: readonly string[]): Promise<string[]> {
  return [...(await loadAccounts(trx, accountIds)).values()].flatMap((a) => (a.person_id ? [a.person_id] : []));
}

interface Referrers {
  table: 'file_permissions' | 'group_members';
  owner: 'file_id' | 'group_id';
  type: 'principal_type' | 'member_type';
  ref: 'principal_id' | 'member_id';
}

const FILE_ACCESS: Referrers = { table: 'file_permissions', owner: 'file_id', type: 'principal_type', ref: 'principal_id' };
const GROUP_MEMBERS: Referrers = { table: 'group_members', owner: 'group_id', type: 'member_type', ref: 'member_id' };

/** The references that name user accounts (the only ones the partial index over access entries holds). */
const userRefs = (trx: Knex, r: Referrers): Knex.QueryBuilder => trx(r.table).where(r.type, 'USER');

/** Re-points the references to these accounts; returns the owners (files or groups) whose served rows changed. */
async function repoint(trx: Knex, r: Referrers, accounts: ReadonlyMap<string, AccountState>): Promise<string[]> {
  const owners = new Set<string>();
  for (const part of chunks([...accounts.keys()], IDS_PER_STATEMENT)) {
    const rows = (await userRefs(trx, r).whereIn(r.ref, part).select(`${r.owner} as owner`, `${r.ref} as ref`, 'served_id')) as Array<{
      owner: string;
      ref: string;
      served_id: string | null;
    }>;
    const stale = new Set<string>();
    for (const row of rows) {
      if (row.served_id !== servedIdOf({ type: 'USER', id: row.ref }, accounts)) {
        stale.add(row.ref);
        owners.add(row.owner);
      }
    }
    for (const ref of stale)
      await userRefs(trx, r)
        .where(r.ref, ref)
        .update({ served_id: servedIdOf({ type: 'USER', id: ref }, accounts) });
  }
  return [...owners];
}

/** Moves a timestamp column of rows whose served form changed: to `at`, or just past a stored value not before it. */
async function touch(trx: Knex, table: 'files' | 'groups', column: string, served: string, ids: readonly string[], at: string): Promise<void> {
  for (const part of chunks([...ids].sort(), IDS_PER_STATEMENT)) {
    const rows = (await trx(table)
      .whereIn('id', part)
      .select('id', trx.raw(`${served} as served`))) as Array<{ id: string; served: string | null }>;
    const now = rows.filter((row) => !row.served || row.served < at).map((row) => row.id);
    if (now.length)
      await trx(table)
        .whereIn('id', now)
        .update({ [column]: at });
    for (const row of rows)
      if (row.served && row.served >= at)
        await trx(table)
          .where({ id: row.id })
          .update({ [column]: changeTime(at, row.served) });
  }
}

/**
 * After accounts were written, inactivated or re-pointed to another person: their references
 * serve what they now should (moving the access lists' and groups' times where that changed),
 * and the persons they belonged to (`formerPersons`) and belong to now are made again.
 */
export async function resolveAccounts(trx: Knex, accountIds: readonly string[], formerPersons: readonly string[], at: string): Promise<void> {
  if (accountIds.length === 0) return;
  const accounts = await loadAccounts(trx, accountIds);
  const files = await repoint(trx, FILE_ACCESS, accounts);
  await touch(trx, 'files', 'permissions_modified_at', 'coalesce(permissions_modified_at, modified_at)', files, at);
  const groups = await repoint(trx, GROUP_MEMBERS, accounts);
  await touch(trx, 'groups', 'modified_at', 'modified_at', groups, at);
  const persons = [...formerPersons, ...[...accounts.values()].flatMap((a) => (a.person_id ? [a.person_id] : []))];
  await refreshPeople(trx, persons, at);
}

interface AccountRow {
  id: string;
  person_id: string;
  email: string;
  full_name: string | null;
  state: 'Active' | 'Inactive';
  metadata: string | null;
}

interface PersonRow {
  id: string;
  email: string;
  full_name: string | null;
  state: 'Active' | 'Inactive';
  modified_at: string;
  metadata: string | null;
  content_hash: string;
}

/** A person's served row from its accounts (at least one): the first account (active first, then by id) speaks for it. */
export function personFrom(id: string, accounts: readonly AccountRow[]): Omit<PersonRow, 'modified_at'> {
  const ordered = [...accounts].sort((a, b) => (a.state === b.state ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.state === 'Active' ? -1 : 1));
  const primary = ordered[0] as AccountRow;
  const served = {
    // Trimmed and in NFKC (full-width letters made plain), case kept: the address as people write it.
    email: primary.email.trim().normalize('NFKC'),
    full_name: primary.full_name ?? ordered.find((a) => a.full_name !== null)?.full_name ?? null,
    state: ordered.some((a) => a.state === 'Active') ? ('Active' as const) : ('Inactive' as const),
    metadata: primary.metadata,
  };
  return { id, ...served, content_hash: crypto.hash('sha256', JSON.stringify(served), 'hex') };
}

/**
 * Makes these persons' served rows again from their accounts; `modified_at` moves only for a row
 * whose served values changed. A person left without accounts (every one re-pointed elsewhere)
 * stays, Inactive, so the platform sees the user go. On Postgres, concurrent syncs of different
 * sources take turns here (a transaction-scoped advisory lock), so each reads the accounts the
 * other committed.
 */
export async function refreshPeople(trx: Knex, personIds: readonly string[], at: string): Promise<void> {
  const ids = [...new Set(personIds)].sort();
  if (ids.length === 0) return;
  if (trx.client.config.client === 'pg') await trx.raw('select pg_advisory_xact_lock(?)', [PEOPLE_LOCK]);
  for (const part of chunks(ids, IDS_PER_STATEMENT)) {
    const accounts = (await trx('users').whereIn('person_id', part).select('id', 'person_id', 'email', 'full_name', 'state', 'metadata')) as AccountRow[];
    const stored = new Map(
      (
        (await trx('people').whereIn('id', part).select('id', 'modified_at', 'content_hash')) as Array<{
          id: string;
          modified_at: string;
          content_hash: string | null;
        }>
      ).map((p) => [p.id, p]),
    );
    const byPerson = new Map<string, AccountRow[]>();
    for (const a of accounts) byPerson.set(a.person_id, [...(byPerson.get(a.person_id) ?? []), a]);
    const rows: PersonRow[] = [];
    for (const id of part) {
      const own = byPerson.get(id);
      if (!own) continue;
      const row = personFrom(id, own);
      const before = stored.get(id);
      if (before?.content_hash !== row.content_hash) rows.push({ ...row, modified_at: changeTime(at, before?.modified_at) });
    }
    await insertRows(trx, 'people', rows, ['id'], 'merge');
    const orphans = part.filter((id) => !byPerson.has(id) && stored.has(id));
    if (orphans.length)
      await trx('people').whereIn('id', orphans).where({ state: 'Active' }).update({ state: 'Inactive', modified_at: at, content_hash: null });
  }
}

/** The advisory lock key of `refreshPeople` (any constant the gateway uses for nothing else). */
const PEOPLE_LOCK = 0x70656f70;
