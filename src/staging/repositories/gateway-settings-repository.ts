import type { Db } from '../database/create-db';

/** Small values the gateway keeps in its own database, shared by every replica on it. */
export class GatewaySettingsRepository {
  constructor(private readonly db: Db) {}

  /**
   * The stored value of `key`, creating it with `make()` on first use. Insert-or-ignore then read
   * back, so replicas racing at start-up all end with the same value.
   */
  async getOrCreate(key: string, make: () => string): Promise<string> {
    await this.db('gateway_settings').insert({ key, value: make() }).onConflict('key').ignore();
    const row = (await this.db('gateway_settings').where({ key }).first('value')) as { value: string } | undefined;
    if (!row) throw new Error(`gateway setting ${key} vanished`);
    return row.value;
  }
}
