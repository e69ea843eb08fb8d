import type { Db } from '../database/create-db';

/** The sync queues' names: `sync.<adapter>.<kind>`, and the dead-letter queue. */
export const SYNC_QUEUE_PREFIX = 'sync.';
export const DEAD_LETTER_QUEUE = 'sync.dead';

/** A queue's jobs by state: waiting (created, or failed and waiting for a retry), running, failed for good, dead (in the dead-letter queue). */
export interface QueueCounts {
  queue: string;
  waiting: number;
  running: number;
  failed: number;
  dead: number;
}

export interface DeadJob {
  id: string;
  /** The queue its source and kind came from: `sync.<adapter>.<kind>`. */
  adapter: string;
  kind: string;
  error: string;
  at: string;
}

/** A queue's schedule: a job of `kind` for `source` on each tick of `cron`. */
export interface QueueSchedule {
  queue: string;
  cron: string;
  timezone: string;
  source: string;
  kind: string;
}

type JobOutput = { message?: string; value?: { message?: string } } | null;

/**
 * The sync job queue's state, read with SQL from the queue's own tables (pg-boss's `job` table in
 * `SYNC_QUEUE_SCHEMA`, on the staging database): by `queue` and `/metrics`, in any process, with
 * no queue client running. Read-only; the workers alone change it, through pg-boss.
 */
export class SyncQueueState {
  constructor(
    private readonly db: Db,
    private readonly schema: string,
  ) {}

  /**
   * Runs `work` holding a transaction-scoped advisory lock named after the queue: workers starting
   * together install and register the queue one after another (concurrent creation deadlocks).
   */
  async serialized<T>(work: () => Promise<T>): Promise<T> {
    return this.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`content-gateway sync queue ${this.schema}`]);
      return work();
    });
  }

  /** False until a `sync-worker` has created the queue's tables. */
  async exists(): Promise<boolean> {
    return this.db.schema.withSchema(this.schema).hasTable('job');
  }

  async counts(): Promise<QueueCounts[]> {
    const rows = (await this.db
      .withSchema(this.schema)
      .from('job')
      .where('name', 'like', `${SYNC_QUEUE_PREFIX}%`)
      .select('name', 'state')
      .count({ n: '*' })
      .groupBy('name', 'state')
      .orderBy('name')) as Array<{ name: string; state: string; n: number | string }>;
    const byQueue = new Map<string, QueueCounts>();
    for (const row of rows) {
      const dead = row.name === DEAD_LETTER_QUEUE;
      const queue = dead ? DEAD_LETTER_QUEUE : row.name;
      const counts = byQueue.get(queue) ?? { queue, waiting: 0, running: 0, failed: 0, dead: 0 };
      const n = Number(row.n);
      if (dead) counts.dead += row.state === 'created' || row.state === 'retry' ? n : 0;
      else if (row.state === 'created' || row.state === 'retry') counts.waiting += n;
      else if (row.state === 'active') counts.running += n;
      else if (row.state === 'failed') counts.failed += n;
      byQueue.set(queue, counts);
    }
    return [...byQueue.values()];
  }

  /** The jobs in the dead-letter queue, newest first: each failed every retry; its last error. */
  async deadJobs(limit: number): Promise<DeadJob[]> {
    const rows = (await this.db
      .withSchema(this.schema)
      .from('job')
      .where({ name: DEAD_LETTER_QUEUE })
      .whereIn('state', ['created', 'retry'])
      .orderBy('created_on', 'desc')
      .limit(limit)
      .select('id', 'data', 'output', 'created_on')) as Array<{
      id: string;
      data: { adapter?: string; kind?: string } | null;
      output: JobOutput;
      created_on: Date;
    }>;
    return rows.map((row) => ({
      id: row.id,
      adapter: row.data?.adapter ?? '?',
      kind: row.data?.kind ?? '?',
      error: row.output?.message ?? row.output?.value?.message ?? 'no error recorded',
      at: new Date(row.created_on).toISOString(),
    }));
  }

  /** The queues' cron schedules (pg-boss's `schedule` table): which source and kind of run, how often. */
  async schedules(): Promise<QueueSchedule[]> {
    const rows = (await this.db
      .withSchema(this.schema)
      .from('schedule')
      .where('name', 'like', `${SYNC_QUEUE_PREFIX}%`)
      .orderBy('name')
      .select('name', 'cron', 'timezone', 'data')) as Array<{
      name: string;
      cron: string;
      timezone: string | null;
      data: { source?: string; kind?: string } | null;
    }>;
    return rows.map((row) => ({
      queue: row.name,
      cron: row.cron,
      timezone: row.timezone ?? 'UTC',
      source: row.data?.source ?? '?',
      kind: row.data?.kind ?? '?',
    }));
  }

  /**
   * Running jobs whose run stopped heartbeating: started over `heartbeatSeconds` ago, and their
   * source's sync lock is gone or its lease ran out (the worker running them died).
   */
  async jobsOfDeadWorkers(heartbeatSeconds: number, now: Date): Promise<Array<{ id: string; queue: string }>> {
    const rows = (await this.db
      .from(this.db.raw('?? as j', [`${this.schema}.job`]))
      // An access-only run's lease is its own lock's (`<source>#access`, accessLockKey).
      .leftJoin(
        'sync_locks as l',
        (join) => void join.on('l.source', '=', this.db.raw("j.data->>'source' || case when j.data->>'kind' = 'access' then '#access' else '' end")),
      )
      .where('j.state', 'active')
      .where('j.name', 'like', `${SYNC_QUEUE_PREFIX}%`)
      .whereNot('j.name', DEAD_LETTER_QUEUE)
      .whereRaw('j.started_on < now() - make_interval(secs => ?)', [heartbeatSeconds])
      .where((q) => void q.whereNull('l.source').orWhere('l.expires_at', '<', now.toISOString()))
      .select('j.id', 'j.name')) as Array<{ id: string; name: string }>;
    return rows.map((row) => ({ id: row.id, queue: row.name }));
  }
}
