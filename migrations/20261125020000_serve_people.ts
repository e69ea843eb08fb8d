import type { Knex } from 'knex';
import { refreshPeople } from '../src/staging/people';
import { personIdOf } from '../src/staging/person-id';

/**
 * One person, one served user (see src/staging/people.ts). `users` keeps each source's accounts
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
    await knex(table).whereNot(type, 'USER').update({ served_id: knex.ref(ref) });
    await knex(table).where(type, 'USER').whereNotIn(ref, account).update({ served_id: knex.ref(ref) });
    const active = knex.raw(`(select u.person_id from users u where u.id = ${table}.${ref} and u.state = 'Active')`);
    await knex(table).where(type, 'USER').whereIn(ref, knex('users').select('id')).update({ served_id: active });
  }
  await refreshPeople(knex, [...persons], new Date().toISOString());
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
