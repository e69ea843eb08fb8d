import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../staging/database/create-db';

type Count = number | string;

interface LatestRun {
  source: string;
  status: string;
  started_at: string;
  counts: string | null;
}

/** The latest sync run of each source. */
async function latestRuns(db: Db): Promise<LatestRun[]> {
  return (await db('sync_runs').whereIn('id', db('sync_runs').max('id').groupBy('source')).select('source', 'status', 'started_at', 'counts')) as LatestRun[];
}

function stagedRows(db: Db, registers: Registry[]): void {
  new Gauge({
    name: 'content_gateway_staged_rows',
    aggregator: 'first',
    help: 'Rows in staging, by table and status.',
    labelNames: ['table', 'status'],
    registers,
    async collect() {
      this.reset();
      for (const r of (await db('files').select('status').count({ n: '*' }).groupBy('status')) as Array<{ status: string; n: Count }>)
        this.set({ table: 'files', status: r.status }, Number(r.n));
      // `users`: the sources' accounts; `people`: the users served (one per person).
      for (const table of ['users', 'people']) {
        for (const r of (await db(table).select('state').count({ n: '*' }).groupBy('state')) as Array<{ state: string; n: Count }>)
          this.set({ table, status: r.state }, Number(r.n));
      }
      for (const table of ['groups', 'group_members', 'file_permissions']) {
        const row = (await db(table).count({ n: '*' }).first()) as { n: Count };
        this.set({ table, status: 'all' }, Number(row.n));
      }
    },
  });
}

function syncRuns(db: Db, registers: Registry[]): void {
  new Gauge({
    name: 'content_gateway_sync_runs',
    aggregator: 'first',
    help: 'Sync runs recorded, by source, mode and status.',
    labelNames: ['source', 'mode', 'status'],
    registers,
    async collect() {
      this.reset();
      for (const r of (await db('sync_runs').select('source', 'mode', 'status').count({ n: '*' }).groupBy('source', 'mode', 'status')) as Array<{
        source: string;
        mode: string;
        status: string;
        n: Count;
      }>) {
        this.set({ source: r.source, mode: r.mode, status: r.status }, Number(r.n));
      }
    },
  });
}

function lastRunItems(db: Db, registers: Registry[]): void {
  new Gauge({
    name: 'content_gateway_sync_last_run_items',
    aggregator: 'first',
    help: 'Files of the latest sync run of each source, by outcome (added, changed, unchanged, deleted, failed).',
    labelNames: ['source', 'outcome'],
    registers,
    async collect() {
      this.reset();
      for (const r of await latestRuns(db)) {
        for (const [outcome, n] of Object.entries(r.counts ? (JSON.parse(r.counts) as Record<string, number>) : {})) this.set({ source: r.source, outcome }, n);
      }
    },
  });
}

function unannouncedChanges(db: Db, registers: Registry[]): void {
  new Counter({
    name: 'content_gateway_sync_unannounced_changes_total',
    aggregator: 'first',
    help: 'Changes sync runs found by polling that no change event announced (access reconciliation of a lossy change feed: access lists rewritten, files tombstoned or read again), by source, over every recorded run.',
    labelNames: ['source'],
    registers,
    async collect() {
      this.reset();
      for (const r of (await db('sync_runs').select('source').sum({ n: 'unannounced' }).groupBy('source')) as Array<{
        source: string;
        n: Count | null;
      }>)
        this.inc({ source: r.source }, Number(r.n ?? 0));
    },
  });
}

function lastRunTimestamp(db: Db, registers: Registry[]): void {
  new Gauge({
    name: 'content_gateway_sync_last_run_timestamp_seconds',
    aggregator: 'first',
    help: 'When the latest sync run of each source started, by its status.',
    labelNames: ['source', 'status'],
    registers,
    async collect() {
      this.reset();
      for (const r of await latestRuns(db)) this.set({ source: r.source, status: r.status }, Date.parse(r.started_at) / 1000);
    },
  });
}

/**
 * Metrics read from staging when scraped (the same in every worker: gathered across workers, they
 * count once): rows by table and status, and the sync runs each source
 * recorded (how many, the latest one's counts and start, the changes no event announced).
 */
export function registerStagingMetrics(db: Db, registers: Registry[]): void {
  stagedRows(db, registers);
  syncRuns(db, registers);
  lastRunItems(db, registers);
  unannouncedChanges(db, registers);
  lastRunTimestamp(db, registers);
}
