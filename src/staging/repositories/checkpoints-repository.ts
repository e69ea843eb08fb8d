import type { Db } from '../database/create-db';

/** `sync_checkpoints`: the incremental position of each source, replaced whole on every save. */
export class CheckpointsRepository {
  constructor(private readonly db: Db) {}

  async load(source: string): Promise<unknown> {
    const row = (await this.db('sync_checkpoints').where({ source }).first('checkpoint')) as { checkpoint: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.checkpoint) as unknown;
    } catch {
      return { invalid: row.checkpoint };
    }
  }

  async save(source: string, checkpoint: unknown, at: string): Promise<void> {
    await this.db('sync_checkpoints')
      .insert({ source, checkpoint: JSON.stringify(checkpoint), updated_at: at })
      .onConflict('source')
      .merge();
  }

  async clear(source: string): Promise<void> {
    await this.db('sync_checkpoints').where({ source }).delete();
  }
}
