import type { Knex } from 'knex';

/**
 * Access entries are looked up by principal for one purpose: re-pointing the entries that name a
 * user account when that account's person or state changes (staging/write-path/people.ts). The index over
 * every entry's (principal_type, principal_id) gives way to one over user entries only.
 *
 * Group entries then cost no index write. That matters for access policies: every document names
 * its document-class group, one of hundreds, so a batch of entries landed on hundreds of leaves
 * of the old index and each commit wrote them all again (a 100,000-document sync with a policy
 * spent 3.5 s committing against 1.6 s without; 1.1-1.3x the policy-less sync without the index
 * against 1.6-2.0x with it, same runs). Entries naming `*` or a source's groups were indexed for
 * nothing too.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create index file_permissions_user on file_permissions (principal_id) where principal_type = 'USER'`);
  await knex.raw(`drop index file_permissions_principal`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`create index file_permissions_principal on file_permissions (principal_type, principal_id)`);
  await knex.raw(`drop index file_permissions_user`);
}
