import type { Db } from '../database/create-db';

interface Row {
  source: string;
  secret: string | null;
  handshake_open_until: string | null;
}

/** The webhook secret of each source, and the window in which a handshake may set it. */
export class WebhookSecretsRepository {
  constructor(
    private readonly db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Opens the handshake window of `source` for `ms` (a registration is about to create the webhook). */
  async expectHandshake(source: string, ms: number): Promise<void> {
    const until = new Date(this.now().getTime() + ms).toISOString();
    const at = this.now().toISOString();
    await this.db('webhook_secrets')
      .insert({ source, secret: null, handshake_open_until: until, updated_at: at })
      .onConflict('source')
      .merge({ handshake_open_until: until, updated_at: at });
  }

  /** Closes the handshake window of `source` (a registration failed: no handshake is coming that should set the secret). */
  async closeHandshake(source: string): Promise<void> {
    await this.db('webhook_secrets').where({ source }).update({ handshake_open_until: null, updated_at: this.now().toISOString() });
  }

  /** Stores the secret of a handshake if one is expected (and closes the window); false otherwise. */
  async acceptHandshake(source: string, secret: string): Promise<boolean> {
    const at = this.now().toISOString();
    const changed = await this.db('webhook_secrets')
      .where({ source })
      .andWhere('handshake_open_until', '>', at)
      .update({ secret, handshake_open_until: null, updated_at: at });
    return changed > 0;
  }

  async secretOf(source: string): Promise<string | undefined> {
    const row = (await this.db('webhook_secrets').where({ source }).first('source', 'secret', 'handshake_open_until')) as Row | undefined;
    return row?.secret ?? undefined;
  }
}
