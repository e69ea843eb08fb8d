import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases';
import { runCli, startCli, type CliProcess } from '../e2e/cli-process';
import PgBoss from 'pg-boss';
import { queueName, type SyncJobData } from '../../src/cli/sync-queue/queue-scheduler';
import { generateMixedTree, type MixedTree } from '@content-gateway/kit/src/fixtures/mixed-tree';

/**
 * Issue 30 point 2, through the front door: two real `sync-worker` processes (the built program)
 * on one Postgres, sharing the sync job queue (pg-boss, in a schema of this file's own), with a
 * short heartbeat. The schedule fires without anyone sending a job; the worker running the first
 * (full) run of a generated folder is SIGKILLed part way, the other sees its heartbeat stop,
 * retries the job and resumes the run from its checkpoint: every file staged once, none lost; the
 * source's runs never overlap; a source that keeps failing (a wiki nothing answers for) lands in
 * the dead-letter queue with its error, which `queue` shows.
 */
const FILES = 3000;

jest.setTimeout(240_000);

interface RunRow {
  id: number;
  source: string;
  mode: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  error: string | null;
  job_id: string | null;
}

const pgUrl = process.env.TEST_DATABASE_URL;

(pgUrl ? describe : describe.skip)('sync-worker: two workers on one Postgres queue', () => {
  let work: string;
  let tree: MixedTree;
  let db: TestDatabase;
  let env: Record<string, string>;
  const workers: CliProcess[] = [];

  const runs = async (source: string): Promise<RunRow[]> =>
    (await db
      .db('sync_runs')
      .where({ source })
      .orderBy('id')
      .select('id', 'source', 'mode', 'status', 'started_at', 'finished_at', 'error', 'job_id')) as RunRow[];
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> => {
    for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(100)) {
      const value = await probe();
      if (value !== undefined) return value;
    }
    throw new Error(`timed out waiting for ${what}\n${workers.map((w) => w.stdout() + w.stderr()).join('\n----\n')}`);
  };

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-worker-'));
    fs.mkdirSync(path.join(work, 'tree'));
    tree = generateMixedTree(path.join(work, 'tree'), { files: FILES });
    db = await createTestDatabase('postgres');
    env = {
      ...db.env,
      FILESYSTEM_ROOT: tree.root,
      BLOB_DIR: path.join(work, 'blobs'),
      // Nothing listens there: every run of this source fails.
      EXAMPLE_WIKI_URL: 'http://127.0.0.1:9/api/v1',
      EXAMPLE_WIKI_TOKEN: 'worker-test-token',
      SYNC_BATCH_SIZE: '100',
      SYNC_HEARTBEAT_SECONDS: '2',
      SYNC_JOB_RETRIES: '1',
      SYNC_JOB_RETRY_DELAY_SECONDS: '1',
      LOG_LEVEL: 'info',
    };
  });

  afterAll(async () => {
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    if (db) await db.destroy();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('schedules fire; a killed worker’s run finishes on the other, every file once; runs never overlap; a failing source is dead-lettered', async () => {
    const args = ['sync-worker', '--all', '--every', '1m', '--full-every', 'off'];
    workers.push(startCli(args, env), startCli(args, env));
    await Promise.all(workers.map((w) => w.waitForLog((l) => l.msg === 'sync worker started', 'the worker started')));

    // The schedule fires on its own: a run of the folder starts, on one of the workers.
    const holder = await until('the first run part way', async () => {
      const lock = (await db.db('sync_locks').where({ source: 'filesystem' }).first()) as { owner: string } | undefined;
      const files = Number((await db.db('files').count({ n: '*' }).first())?.n);
      return lock && files >= 500 ? Number(lock.owner.split(':')[1]) : undefined;
    });
    const killed = workers.find((w) => w.pid === holder);
    const survivor = workers.find((w) => w.pid !== holder);
    expect(killed && survivor).toBeTruthy();
    killed!.child.kill('SIGKILL');
    await killed!.exited;
    expect((await runs('filesystem')).map((r) => r.status)).toEqual(['running']);

    // The survivor sees the run's heartbeat stop, retries its job and resumes the run.
    await survivor!.waitForLine((l) => /^filesystem: full \(resumed\) sync succeeded/.test(l), 'the resumed run');
    const staged = (await db.db('files').where({ source: 'filesystem', status: 'active' }).select('native_id')) as Array<{ native_id: string }>;
    expect(staged.length).toBe(FILES);
    expect(staged.map((f) => f.native_id).sort()).toEqual(tree.files.map((f) => f.path).sort());
    expect(Number((await db.db('files').where({ source: 'filesystem' }).count({ n: '*' }).first())?.n)).toBe(FILES);

    // The next minute's schedule fires too: an incremental run, after the first one ended.
    const rows = await until('a second run of the folder', async () => {
      const all = await runs('filesystem');
      return all.length >= 2 && all.every((r) => r.status === 'succeeded') ? all : undefined;
    });
    expect(rows.map((r) => r.mode).slice(0, 2)).toEqual(['full', 'incremental']);
    for (let i = 1; i < rows.length; i += 1) expect(rows[i]!.started_at >= (rows[i - 1]!.finished_at ?? '')).toBe(true);
    // Each run row names the job it ran for, from its insertion (the resumed run kept its job: a retry is the same job).
    expect(rows.every((r) => /^[0-9a-f-]{36}$/.test(r.job_id ?? ''))).toBe(true);
    expect(new Set(rows.map((r) => r.job_id)).size).toBe(rows.length);

    // The wiki's job failed, was retried once, failed again: it is in the dead-letter queue.
    const dead = await until('the dead wiki job', async () => {
      const result = await runCli(['queue'], env);
      return /example-wiki incremental: /.test(result.stdout) ? result : undefined;
    });
    expect(dead).toMatchObject({ code: 0, stderr: '' });
    expect(dead.stdout).toMatch(/sync\.dead {2}waiting 0, running 0, failed 0, dead [1-9]/);
    expect(dead.stdout).toMatch(/^ {2}\S+ {2}example-wiki incremental: run #\d+ failed: .+$/m);
    const json = JSON.parse((await runCli(['queue', '--json'], env)).stdout) as {
      queues: Array<{ queue: string }>;
      dead: Array<{ adapter: string; kind: string; error: string }>;
    };
    expect(json.queues.map((q) => q.queue)).toEqual(expect.arrayContaining(['sync.filesystem.incremental', 'sync.example-wiki.incremental', 'sync.dead']));
    expect(json.dead[0]).toMatchObject({ adapter: 'example-wiki', kind: 'incremental', error: expect.stringMatching(/^run #\d+ failed: /) });
    const wikiRuns = await runs('example-wiki');
    // Every wiki run failed (the next scheduled one, or one the killed worker had begun, may still be marked running).
    expect(wikiRuns.filter((r) => r.status === 'failed').length).toBeGreaterThanOrEqual(2);
    expect(wikiRuns.filter((r) => r.status !== 'running').every((r) => r.status === 'failed')).toBe(true);

    survivor!.child.kill('SIGTERM');
    expect(await survivor!.exited).toEqual({ code: 0, signal: null });
  });
});

/** Sends one job to the source's incremental queue, as `QueueSyncRequester` does, on the test database's queue schema. */
async function sendSyncJob(db: TestDatabase, data: SyncJobData): Promise<void> {
  const boss = new PgBoss({ connectionString: db.env.DATABASE_URL, schema: db.env.SYNC_QUEUE_SCHEMA, max: 1, supervise: false, schedule: false });
  await boss.start();
  try {
    expect(await boss.send(queueName(data.adapter, data.kind), data)).toEqual(expect.any(String));
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

/** `promise`, or a failure naming `what` after `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

(pgUrl ? describe : describe.skip)('sync-worker beside a sync from the CLI (Postgres)', () => {
  it('a job that finds its source being synced waits its turn: the runs never overlap, the CLI run recorded as before', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-worker-cli-'));
    const db = await createTestDatabase('postgres');
    let worker: CliProcess | undefined;
    try {
      fs.mkdirSync(path.join(work, 'tree'));
      const tree = generateMixedTree(path.join(work, 'tree'), { files: FILES });
      const env = {
        ...db.env,
        FILESYSTEM_ROOT: tree.root,
        BLOB_DIR: path.join(work, 'blobs'),
        SYNC_BATCH_SIZE: '100',
        SYNC_JOB_RETRY_DELAY_SECONDS: '1',
        // A lease the paused sync keeps for as long as the test needs.
        SYNC_HEARTBEAT_SECONDS: '300',
        LOG_LEVEL: 'info',
      };
      const cli = startCli(['sync', 'filesystem'], env);
      for (let files = 0; files < 200; await sleep(50)) files = Number((await db.db('files').count({ n: '*' }).first())?.n);
      // Paused, its lock's lease still live, until the worker's job has met the lock.
      cli.child.kill('SIGSTOP');
      worker = startCli(['sync-worker', 'filesystem', '--every', '1m', '--full-every', 'off'], env);
      const w = worker;
      await w.waitForLog((l) => l.msg === 'sync worker started', 'the worker started');
      // A job arrives while the source is being synced: sent as the gateway's webhook requester
      // sends one (the schedule's next tick, up to a minute away, would do the same).
      await sendSyncJob(db, { adapter: 'filesystem', source: 'filesystem', kind: 'incremental' });
      await within(
        120_000,
        'the deferred job',
        w.waitForLog((l) => l.msg === 'sync job deferred: its source is being synced'),
      );
      cli.child.kill('SIGCONT');
      expect(await cli.exited).toEqual({ code: 0, signal: null });
      await within(
        60_000,
        "the worker's run",
        w.waitForLine((l) => /^filesystem: incremental sync succeeded/.test(l)),
      );
      const rows = (await db.db('sync_runs').orderBy('id').select('status', 'started_at', 'finished_at', 'job_id')) as Array<
        Pick<RunRow, 'status' | 'started_at' | 'finished_at' | 'job_id'>
      >;
      expect(rows.map((r) => [r.status, r.job_id === null])).toEqual([
        ['succeeded', true],
        ['succeeded', false],
      ]);
      expect(rows[1]!.started_at >= (rows[0]!.finished_at ?? '')).toBe(true);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toEqual({ code: 0, signal: null });
    } finally {
      worker?.child.kill('SIGKILL');
      await db.destroy();
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('sync-worker: usage', () => {
  it('with Postgres, refuses an interval the queue cannot schedule (it takes cron schedules), naming the option, before connecting', async () => {
    // Nothing listens at this address: the refusal comes first.
    const env = { DATABASE_URL: 'postgres://gateway@127.0.0.1:9/gateway', FILESYSTEM_ROOT: os.tmpdir() };
    const [every, fullEvery] = await Promise.all([
      runCli(['sync-worker', 'filesystem', '--every', '7m'], env),
      runCli(['sync-worker', 'filesystem', '--full-every', '90s'], env),
    ]);
    expect(every).toMatchObject({ code: 1, stdout: '' });
    expect(every.stderr).toMatch(
      /^error: with Postgres, --every takes an interval that divides an hour or a day evenly \(1m, 5m, 15m, 30m, 1h, 6h, 24h\); got 7 minutes\n/,
    );
    expect(fullEvery).toMatchObject({ code: 1, stdout: '' });
    expect(fullEvery.stderr).toMatch(/^error: with Postgres, --full-every takes an interval .*; got 1.5 minutes\n/);
  });
});

describe('queue and sync-worker on SQLite', () => {
  it('queue says there is no queue (syncs are scheduled in their process); sync-worker runs in process and stops on SIGTERM', async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-worker-sqlite-'));
    try {
      fs.mkdirSync(path.join(work, 'tree'));
      const tree = generateMixedTree(path.join(work, 'tree'), { files: 20 });
      const env = { SQLITE_PATH: path.join(work, 'gw.sqlite'), BLOB_DIR: path.join(work, 'blobs'), FILESYSTEM_ROOT: tree.root };
      const queue = await runCli(['queue'], env);
      expect(queue).toMatchObject({ code: 0, stderr: '' });
      expect(queue.stdout).toMatch(/^No sync queue: with SQLite, `sync-worker` \(and `sync --every`\) schedule syncs in their own process/);
      const worker = startCli(['sync-worker', 'filesystem', '--every', '90s'], env);
      await worker.waitForLine((l) => /^filesystem: full sync succeeded: files added 20,/.test(l), 'the first run');
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toEqual({ code: 0, signal: null });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});

if (!pgUrl) {
  describe.skip('sync-worker on Postgres (TEST_DATABASE_URL is not set: skipped)', () => {
    it('runs syncs as jobs on a Postgres queue shared by two workers', () => undefined);
  });
}
