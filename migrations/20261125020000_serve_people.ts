import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * One person, one served user (see src/staging/write-path/people.ts). `users` keeps each source's accounts
 * and gains the person each belongs to (`person_id`, from the normalised email); `people` is what
 * the gateway serves; access lists and group members keep the source's reference and gain what is
 * served for it (`served_id`: the person of an active account, nothing for an inactive one, the
 * reference itself for an account no source staged). Existing rows are migrated: every account
 * gets its person, every person its row, every reference its served id.
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg';
  const key = (t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder => (pg ? t.specificType(name, 'text collate "C"') : t.text(name));

  await knex.schema.alterTable('users', (t) => {
    key(t, 'person_id');
    t.index(['person_id'], 'users_person');
  });
  await knex.schema.createTable('people', (t) => {
    key(t, 'id').primary();
    t.text('email').notNullable();
    t.text('full_name');
    key(t, 'state').notNullable().defaultTo('Active');
    key(t, 'modified_at').notNullable();
    t.text('metadata');
    t.text('content_hash');
    t.index(['modified_at', 'id'], 'people_modified_id');
    t.index(['state', 'id'], 'people_state_id');
  });
  await knex.schema.alterTable('file_permissions', (t) => {
    key(t, 'served_id');
    t.index(['file_id', 'principal_type', 'served_id'], 'file_permissions_served');
  });
  await knex.schema.alterTable('group_members', (t) => {
    key(t, 'served_id');
    t.index(['group_id', 'member_type', 'served_id'], 'group_members_served');
  });
  await migrateRows(knex);
}

async function migrateRows(knex: Knex): Promise<void> {
  const persons = new Set<string>();
  let after = '';
  for (;;) {
    const accounts = (await knex('users').where('id', '>', after).orderBy('id').limit(500).select('id', 'email')) as Array<{ id: string; email: string }>;
    if (accounts.length === 0) break;
    for (const a of accounts) {
      const person = personIdOf(a.id, a.email);
      persons.add(person);
      await knex('users').where({ id: a.id }).update({ person_id: person });
    }
    after = (accounts[accounts.length - 1] as { id: string }).id;
  }
  for (const [table, type, ref] of [
    ['file_permissions', 'principal_type', 'principal_id'],
    ['group_members', 'member_type', 'member_id'],
  ] as const) {
    const account = knex('users').select('id');
    await knex(table)
      .whereNot(type, 'USER')
      .update({ served_id: knex.ref(ref) });
    await knex(table)
      .where(type, 'USER')
      .whereNotIn(ref, account)
      .update({ served_id: knex.ref(ref) });
    const active = knex.raw(`(select u.person_id from users u where u.id = ${table}.${ref} and u.state = 'Active')`);
    await knex(table).where(type, 'USER').whereIn(ref, knex('users').select('id')).update({ served_id: active });
  }
  await insertPeople(knex, [...persons].sort(), new Date().toISOString());
}

/*
 * What follows is a frozen copy of what the gateway did when this migration shipped (the person id
 * of src/staging/write-path/person-id.ts with lib/normalize-email.ts, and the person rows of
 * src/staging/write-path/people.ts, `refreshPeople` over an empty `people` table): a migration must do
 * tomorrow what it did the day it ran, whatever those modules become. Do not edit it to follow them.
 */

const DOTLESS_I = '\u0131';

function caseFold(text: string): string {
  let folded = text;
  for (let round = 0; round < 3; round++) {
    const next = Array.from(folded, (c) => (c === DOTLESS_I ? c : c.toUpperCase().toLowerCase())).join('');
    if (next === folded) break;
    folded = next;
  }
  return folded;
}

/** `person-` and 32 hex digits of the SHA-256 of the normalised email (or of the account id, without one). */
function personIdOf(accountId: string, email: string): string {
  const key = caseFold(email.trim().normalize('NFKC')).normalize('NFKC').trim();
  const basis = key === '' ? `account\u0000${accountId}` : `email\u0000${key}`;
  return `person-${crypto.hash('sha256', basis, 'hex').slice(0, 32)}`;
}

interface AccountRow {
  id: string;
  person_id: string;
  email: string;
  full_name: string | null;
  state: 'Active' | 'Inactive';
  metadata: string | null;
}

/** A person's row from its accounts: the first account (active first, then by id) speaks for it. */
function personFrom(id: string, accounts: readonly AccountRow[], at: string): Record<string, string | null> {
  const ordered = [...accounts].sort((a, b) => (a.state === b.state ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.state === 'Active' ? -1 : 1));
  const primary = ordered[0] as AccountRow;
  const served = {
    email: primary.email.trim().normalize('NFKC'),
    full_name: primary.full_name ?? ordered.find((a) => a.full_name !== null)?.full_name ?? null,
    state: ordered.some((a) => a.state === 'Active') ? 'Active' : 'Inactive',
    metadata: primary.metadata,
  };
  return { id, ...served, modified_at: at, content_hash: crypto.hash('sha256', JSON.stringify(served), 'hex') };
}

/** Persons per statement: 200 ids to read their accounts, 7 columns a row to write them. */
const PERSONS_PER_STATEMENT = 200;

/** One `people` row per person (the table is new, so every one is inserted, modified at `at`). */
async function insertPeople(knex: Knex, personIds: readonly string[], at: string): Promise<void> {
  for (let i = 0; i < personIds.length; i += PERSONS_PER_STATEMENT) {
    const part = personIds.slice(i, i + PERSONS_PER_STATEMENT);
    const accounts = (await knex('users').whereIn('person_id', part).select('id', 'person_id', 'email', 'full_name', 'state', 'metadata')) as AccountRow[];
    const byPerson = new Map<string, AccountRow[]>();
    for (const a of accounts) byPerson.set(a.person_id, [...(byPerson.get(a.person_id) ?? []), a]);
    const rows = part.flatMap((id) => {
      const own = byPerson.get(id);
      return own ? [personFrom(id, own, at)] : [];
    });
    if (rows.length) await knex('people').insert(rows);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('group_members', (t) => {
    t.dropIndex(['group_id', 'member_type', 'served_id'], 'group_members_served');
    t.dropColumn('served_id');
  });
  await knex.schema.alterTable('file_permissions', (t) => {
    t.dropIndex(['file_id', 'principal_type', 'served_id'], 'file_permissions_served');
    t.dropColumn('served_id');
  });
  await knex.schema.dropTableIfExists('people');
  await knex.schema.alterTable('users', (t) => {
    t.dropIndex(['person_id'], 'users_person');
    t.dropColumn('person_id');
  });
}
