import type { Knex } from 'knex';

/**
 * Webhooks from a source (the work-management service): per source, the secret its handshake
 * gave (deliveries are signed with it) and until when a handshake is expected (a registration
 * opens that window, so a stranger cannot replace the secret by sending a handshake of its own).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_secrets', (t) => {
    t.string('source', 200).primary();
    t.text('secret').nullable();
    t.text('handshake_open_until').nullable();
    t.text('updated_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_secrets');
}
