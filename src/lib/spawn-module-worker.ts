import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread that runs the module `name` beside `callerFile`, written in TypeScript
 * like the caller: the build runs its compiled `.js`; under tsx or the test runner (whose loaders a
 * worker does not inherit) the `.ts` source runs through tsx's CommonJS hook. `callerFile` is the
 * caller's `__filename`, which tells the two apart. Throws when the source must be loaded but tsx
 * is not installed (it is a development dependency).
 */
export function spawnModuleWorker(callerFile: string, name: string, options: WorkerOptions = {}): Worker {
  const extension = path.extname(callerFile);
  const file = path.join(path.dirname(callerFile), `${name}${extension}`);
  if (extension !== '.ts') return new Worker(file, options);
  const hook = require.resolve('tsx/cjs');
  return new Worker(`require(${JSON.stringify(hook)}); require(${JSON.stringify(file)});`, { ...options, eval: true });
}
