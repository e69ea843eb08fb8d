import type { Worker } from 'node:worker_threads';

/** The one message a benchmark worker posts; rejects if it fails or exits without posting. Ends the worker. */
export function workerResult<T>(worker: Worker, label: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    worker.once('message', (result: T) => {
      settled = true;
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`${label} worker exited with code ${code} before reporting`));
    });
  });
}
