import type { Knex } from 'knex';

/**
 * Webhook secrets per source *and resource*: the service gives each webhook (one per project, or
 * the workspace) a secret of its own at its handshake, so a second registration must not replace
 * the first's. Rows kept from before are the webhooks whose target named no resource (''), which
 * the receiver still accepts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_resource_secrets', (t) => {
    t.string('source', 200).notNullable();
    t.string('resource', 200).notNullable();
    t.text('secret').nullable();
    t.text('handshake_open_until').nullable();
    t.text('updated_at').notNullable();
    t.primary(['source', 'resource']);
  });
  await knex.raw(
    `INSERT INTO webhook_resource_secrets (source, resource, secret, handshake_open_until, updated_at)
     SELECT source, '', secret, handshake_open_until, updated_at FROM webhook_secrets`,
  );
  await knex.schema.dropTable('webhook_secrets');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_secrets', (t) => {
    t.string('source', 200).primary();
    t.text('secret').nullable();
    t.text('handshake_open_until').nullable();
    t.text('updated_at').notNullable();
  });
  await knex.raw(
    `INSERT INTO webhook_secrets (source, secret, handshake_open_until, updated_at)
     SELECT source, secret, handshake_open_until, updated_at FROM webhook_resource_secrets WHERE resource = ''`,
  );
  await knex.schema.dropTable('webhook_resource_secrets');
}
