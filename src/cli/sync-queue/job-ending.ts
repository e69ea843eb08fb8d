import type PgBoss from 'pg-boss';
import type { WithRunEnd } from '../../staging/repositories/sync-runs-repository';
import { transactionExecutor } from './transaction-executor';

/** The end of a job's run, as the job's output and, for a run that did not succeed, its error. */
export function runEndMessage(run: { id: number; status: string; error?: string | undefined }): string {
  return `run #${run.id} ${run.status}${run.error ? `: ${run.error.split('\n')[0]}` : ''}`;
}

/**
 * The job of a run ended in the transaction that records the run's end (pg-boss's `complete`, or
 * `fail` for a run that did not succeed, given that transaction as its `db`): the run row and the
 * job's state commit together, and a worker dying between them leaves the run `running` and the
 * job active, to be failed by the watchdog and retried. A failed job is retried (or goes to the
 * dead-letter queue) as when the worker fails it; its output's `message` is the run's end.
 * `ended.job` is set once the job's end is written, so the worker does not end it a second time.
 */
export function jobEnding(boss: PgBoss, name: string, id: string, ended: { job: boolean } = { job: false }): WithRunEnd {
  return async (trx, run) => {
    const output = { runId: run.id, status: run.status };
    const options = { db: transactionExecutor(trx) };
    if (run.status === 'succeeded') await boss.complete(name, id, output, options);
    else await boss.fail(name, id, { ...output, message: runEndMessage(run) }, options);
    ended.job = true;
  };
}
