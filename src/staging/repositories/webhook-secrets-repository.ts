import type { Db } from '../database/create-db';

/** One webhook of a source: the resource it listens to ('' for a target that names none, registered before resources were kept). */
export interface WebhookKey {
  source: string;
  resource: string;
}

/**
 * The secret of each webhook (a source's, per resource it listens to: the service gives each
 * webhook its own at the handshake), and the window in which a handshake may set it.
 */
export class WebhookSecretsRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Opens the handshake window of the webhook for `ms` (a registration is about to create it). */
  async expectHandshake(key: WebhookKey, ms: number): Promise<void> {
    const until = new Date(this.now().getTime() + ms).toISOString();
    const at = this.now().toISOString();
    await this.db('webhook_resource_secrets')
      .insert({ ...key, secret: null, handshake_open_until: until, updated_at: at })
      .onConflict(['source', 'resource'])
      .merge({ handshake_open_until: until, updated_at: at });
  }

  /** Closes the handshake window (a registration failed: no handshake is coming that should set the secret). */
  async closeHandshake(key: WebhookKey): Promise<void> {
    await this.db('webhook_resource_secrets').where(key).update({ handshake_open_until: null, updated_at: this.now().toISOString() });
  }

  /** Stores the secret of a handshake if one is expected (and closes the window); false otherwise. */
  async acceptHandshake(key: WebhookKey, secret: string): Promise<boolean> {
    const at = this.now().toISOString();
    const changed = await this.db('webhook_resource_secrets')
      .where(key)
      .andWhere('handshake_open_until', '>', at)
      .update({ secret, handshake_open_until: null, updated_at: at });
    return changed > 0;
  }

  async secretOf(key: WebhookKey): Promise<string | undefined> {
    const row = (await this.db('webhook_resource_secrets').where(key).first('secret')) as { secret: string | null } | undefined;
    return row?.secret ?? undefined;
  }
}
