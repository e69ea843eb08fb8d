import type { Worker } from 'node:cluster';

/**
 * A serving worker's last step, once it has drained: `worker.disconnect()`, Node's way for a worker
 * to leave (its servers are closed already, so it only tells the primary and waits for the answer).
 * The primary hands each new connection to a worker over IPC; one handed over just before the
 * primary saw this worker's server close is still in the channel, and a worker that exited then
 * would take it along unanswered while the primary keeps it open. The answer comes after every
 * such hand-off, each of which this worker refuses (the primary passes it to another worker), so
 * nothing is left in flight when it exits.
 */
export function leaveCluster(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    if (!worker.isConnected()) return resolve();
    worker.once('disconnect', () => resolve());
    worker.disconnect();
  });
}
