import { Gauge, type Registry } from 'prom-client';
import { isPostgres, type Db } from '../staging/database/create-db';
import { SyncQueueState } from '../staging/repositories/sync-queue-state';

/**
 * The sync job queue's jobs by queue (`sync.<adapter>.<kind>`, `sync.dead`) and state (waiting,
 * running, failed, dead), read when scraped. None on SQLite (no queue: syncs run in their
 * process) or before a `sync-worker` has created the queue.
 */
export function registerSyncQueueMetrics(db: Db, schema: string, registers: Registry[]): void {
  const state = new SyncQueueState(db, schema);
  const postgres = isPostgres(db);
  new Gauge({
    name: 'content_gateway_sync_jobs',
    aggregator: 'first',
    help: 'Sync jobs on the queue `sync-worker`s share (Postgres), by queue and state: waiting, running, failed (every retry used), dead (in the dead-letter queue, `queue` lists them).',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      this.reset();
      if (!postgres || !(await state.exists())) return;
      for (const c of await state.counts()) {
        for (const key of ['waiting', 'running', 'failed', 'dead'] as const) this.set({ queue: c.queue, state: key }, c[key]);
      }
    },
  });
}
