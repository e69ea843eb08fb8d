import PgBoss from 'pg-boss';
import { jobEnding } from '../../../src/cli/sync-queue/job-ending';
import { SyncRunsRepository, type WithRunEnd } from '../../../src/staging/repositories/sync-runs-repository';
import { zeroCounts } from '../../../src/sync/run-context';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';

const pgUrl = process.env.TEST_DATABASE_URL;
const QUEUE = 'sync.test.full';

/**
 * The run row and its job commit together (Postgres, a real pg-boss queue in a schema of its own):
 * the job is completed (a run that succeeded) or failed (one that did not) with the transaction
 * that closes the run as pg-boss's `db`, so a failure between the two leaves the run `running` and
 * the job active (the watchdog then retries it), never a finished run whose job still waits, or an
 * ended job whose run says nothing.
 */
(pgUrl ? describe : describe.skip)('the sync run row and its queue job, committed together (Postgres)', () => {
  let t: TestDatabase;
  let boss: PgBoss;
  let runs: SyncRunsRepository;
  const at = '2026-05-01T00:00:00.000Z';

  beforeEach(async () => {
    t = await createTestDatabase('postgres');
    boss = new PgBoss({ connectionString: pgUrl, schema: t.env.SYNC_QUEUE_SCHEMA, max: 2 });
    await boss.start();
    await boss.createQueue(QUEUE, { name: QUEUE });
    runs = new SyncRunsRepository(t.db);
  });
  afterEach(async () => {
    await boss.stop({ graceful: false, wait: true });
    await t.destroy();
  });

  /** A job taken by a worker (active), and the run it works, started. */
  async function runOfActiveJob(): Promise<{ jobId: string; runId: number }> {
    await boss.send(QUEUE, { source: 'test' });
    const [job] = await boss.fetch(QUEUE);
    if (!job) throw new Error('no job fetched');
    return { jobId: job.id, runId: await runs.start('test', 'full', at, job.id) };
  }
  const completing =
    (jobId: string, thenFail = false, ended = { job: false }): WithRunEnd =>
    async (trx, run) => {
      await jobEnding(boss, QUEUE, jobId, ended)(trx, run);
      if (thenFail) throw new Error('the worker failed between the job and the run');
    };
  const stateOf = async (jobId: string) => (await boss.getJobById(QUEUE, jobId))?.state;
  const outputOf = async (jobId: string) => (await boss.getJobById(QUEUE, jobId))?.output;
  const statusOf = async (runId: number) => ((await t.db('sync_runs').where({ id: runId }).first()) as { status: string }).status;

  it('commits the finished run and the completed job together', async () => {
    const { jobId, runId } = await runOfActiveJob();
    await runs.finish(runId, 'succeeded', zeroCounts(), at, undefined, 0, completing(jobId));
    expect(await statusOf(runId)).toBe('succeeded');
    expect(await stateOf(jobId)).toBe('completed');
  });

  it('leaves neither when the transaction fails after the job was completed in it', async () => {
    const { jobId, runId } = await runOfActiveJob();
    await expect(runs.finish(runId, 'succeeded', zeroCounts(), at, undefined, 0, completing(jobId, true))).rejects.toThrow(/between the job and the run/);
    expect(await statusOf(runId)).toBe('running');
    expect(await stateOf(jobId)).toBe('active');
  });

  it('commits a failed run and its failed job together, the job failed with the run error (to be retried)', async () => {
    const { jobId, runId } = await runOfActiveJob();
    const ended = { job: false };
    await runs.finish(runId, 'failed', zeroCounts(), at, 'the source said no\nstack', 0, completing(jobId, false, ended));
    expect(await statusOf(runId)).toBe('failed');
    expect(await stateOf(jobId)).toBe('retry');
    expect(await outputOf(jobId)).toMatchObject({ message: `run #${runId} failed: the source said no`, runId, status: 'failed' });
    expect(ended.job).toBe(true);
  });

  it('leaves neither when the transaction fails after the job was failed in it', async () => {
    const { jobId, runId } = await runOfActiveJob();
    await expect(runs.finish(runId, 'cancelled', zeroCounts(), at, 'cancelled', 0, completing(jobId, true))).rejects.toThrow(/between the job and the run/);
    expect(await statusOf(runId)).toBe('running');
    expect(await stateOf(jobId)).toBe('active');
  });
});
