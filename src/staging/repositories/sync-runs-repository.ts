import type { Knex } from 'knex';
import type { Db } from '../database/create-db';

/**
 * Written in the transaction that closes a run, so both commit or neither does: a `sync-worker`
 * completes the run's queue job here (pg-boss, given this transaction as its `db`).
 */
export type WithRunEnd = (trx: Knex.Transaction, run: { id: number; status: Exclude<SyncRunStatus, 'running'>; error?: string }) => Promise<void>;

/** `access`: an access-only run (lists, groups, members, users; no content), under a lock of its own. */
export type SyncMode = 'full' | 'incremental' | 'access';

/** The modes that share a source's content lock (an access run has its own). */
const CONTENT_MODES: readonly SyncMode[] = ['full', 'incremental'];
export type SyncRunStatus = 'running' | 'succeeded' | 'failed' | 'blocked' | 'cancelled';

export interface SyncCounts {
  added: number;
  changed: number;
  unchanged: number;
  deleted: number;
  failed: number;
  skipped: number;
}

export interface SyncRunRow {
  id: number;
  source: string;
  mode: SyncMode;
  status: SyncRunStatus;
  started_at: string;
  finished_at: string | null;
  counts: string | null;
  error: string | null;
  checkpoint: string | null;
  unannounced: number;
  /** The queue job the run worked (a `sync-worker`'s); null for `sync` from the CLI. */
  job_id: string | null;
}

/** A run's failed items (`<item>: <reason>`, one a line, as the run recorded its first 100), or none. */
export function failuresOf(run: Pick<SyncRunRow, 'error' | 'counts' | 'status'>): string[] {
  // A run that failed or was stopped keeps its own error in the column instead.
  if (run.status !== 'succeeded') return [];
  const failed = run.counts ? Number((JSON.parse(run.counts) as { failed?: number }).failed ?? 0) : 0;
  if (failed === 0 || !run.error) return [];
  return run.error.split('\n').filter(Boolean);
}

/** `sync_runs`: one row per run, with its counts, errors and (for full runs) its resume point. */
export class SyncRunsRepository {
  constructor(private readonly db: Db) {}

  /** Records a run as started; `jobId`, the queue job it works, goes into the same row (one insert). */
  async start(source: string, mode: SyncMode, startedAt: string, jobId?: string): Promise<number> {
    const [row] = (await this.db('sync_runs')
      .insert({ source, mode, status: 'running', started_at: startedAt, heartbeat_at: startedAt, job_id: jobId ?? null })
      .returning('id')) as Array<{ id: number } | number>;
    return typeof row === 'object' ? row.id : (row as number);
  }

  /** The newest full run of `source` that never finished (its process died), to resume. */
  async interruptedFullRun(source: string): Promise<SyncRunRow | undefined> {
    const row = (await this.db('sync_runs').where({ source }).whereIn('mode', CONTENT_MODES).orderBy('id', 'desc').first()) as SyncRunRow | undefined;
    return row && row.status === 'running' && row.mode === 'full' ? row : undefined;
  }

  /** A resumed run goes on under the job that resumed it. */
  async assignJob(id: number, jobId: string): Promise<void> {
    await this.db('sync_runs').where({ id }).update({ job_id: jobId });
  }

  async saveProgress(id: number, counts: SyncCounts, checkpoint: unknown, at: string): Promise<void> {
    await this.db('sync_runs')
      .where({ id })
      .update({ counts: JSON.stringify(counts), heartbeat_at: at, ...(checkpoint === undefined ? {} : { checkpoint: JSON.stringify(checkpoint) }) });
  }

  /**
   * `unannounced`: changes the run found by polling that no event had announced (access
   * reconciliation), kept in a column of its own so a total over all runs is one query.
   */
  async finish(
    id: number,
    status: Exclude<SyncRunStatus, 'running'>,
    counts: SyncCounts,
    finishedAt: string,
    error?: string,
    unannounced = 0,
    withEnd?: WithRunEnd,
  ): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('sync_runs')
        .where({ id })
        .update({ status, counts: JSON.stringify(counts), finished_at: finishedAt, error: error ?? null, unannounced });
      await withEnd?.(trx, { id, status, ...(error !== undefined ? { error } : {}) });
    });
  }

  /** When the latest full run of `source` started, whatever its outcome (undefined when there was none). */
  async lastFullRunStart(source: string): Promise<string | undefined> {
    const row = (await this.db('sync_runs').where({ source, mode: 'full' }).max({ started: 'started_at' }).first()) as { started: string | null } | undefined;
    return row?.started ?? undefined;
  }

  /**
   * Marks runs of `source` left `running` by a dead process as failed (they will not resume): those
   * under the same lock as the caller's (`access` runs, or content runs), never the other kind's.
   */
  async abandon(source: string, exceptId: number, at: string, mode: SyncMode = 'full'): Promise<void> {
    await this.db('sync_runs')
      .where({ source, status: 'running' })
      .whereNot({ id: exceptId })
      .where((q) => (mode === 'access' ? q.where({ mode: 'access' }) : q.whereIn('mode', CONTENT_MODES)))
      .update({ status: 'failed', finished_at: at, error: 'abandoned: the process running it stopped' });
  }

  /** The newest content run (full or incremental) of `source`; access-only runs are left out. */
  async latest(source: string): Promise<SyncRunRow | undefined> {
    return (await this.db('sync_runs').where({ source }).whereIn('mode', CONTENT_MODES).orderBy('id', 'desc').first()) as SyncRunRow | undefined;
  }

  /** The newest run of `source` that succeeded (what its served data, access included, was last refreshed by). */
  async lastSucceeded(source: string): Promise<SyncRunRow | undefined> {
    return (await this.db('sync_runs').where({ source, status: 'succeeded' }).orderBy('id', 'desc').first()) as SyncRunRow | undefined;
  }

  /** Runs under way (or left `running` by a process that died), newest first. */
  async running(): Promise<SyncRunRow[]> {
    return (await this.db('sync_runs').where({ status: 'running' }).orderBy('id', 'desc')) as SyncRunRow[];
  }

  /** The newest `limit` runs, of `source` or of every source, newest first. */
  async recent(limit: number, source?: string): Promise<SyncRunRow[]> {
    const query = this.db('sync_runs').orderBy('id', 'desc').limit(limit);
    if (source) query.where({ source });
    return (await query) as SyncRunRow[];
  }

  /** Each source's newest finished run (what its items' state is now). */
  async latestFinishedPerSource(): Promise<SyncRunRow[]> {
    const newest = this.db('sync_runs').whereNot({ status: 'running' }).groupBy('source').max({ id: 'id' });
    return (await this.db('sync_runs').whereIn('id', newest).orderBy('source')) as SyncRunRow[];
  }
}
