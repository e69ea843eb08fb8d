import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { spawnModuleWorker } from '../../src/lib/spawn-module-worker';

/** A worker module that answers its workerData doubled, in JavaScript (as built) or TypeScript (as written). */
const WORKER_JS =
  "const { parentPort, workerData } = require('node:worker_threads');\nparentPort.postMessage({ doubled: workerData * 2, file: __filename });\n";
const WORKER_TS =
  "import { parentPort, workerData } from 'node:worker_threads';\nconst n: number = workerData as number;\nparentPort?.postMessage({ doubled: n * 2, file: __filename });\n";

function answer(worker: Worker): Promise<{ doubled: number; file: string }> {
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { doubled: number; file: string }) => {
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', reject);
  });
}

describe('spawnModuleWorker starts the worker module beside its caller, from the build or from the sources', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spawn-worker-'));
    fs.writeFileSync(path.join(dir, 'echo-worker.js'), WORKER_JS);
    fs.writeFileSync(path.join(dir, 'echo-worker.ts'), WORKER_TS);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a compiled caller (.js, as under dist/) runs the compiled worker beside it', async () => {
    const m = await answer(spawnModuleWorker(path.join(dir, 'caller.js'), 'echo-worker', { workerData: 21 }));
    expect(m).toEqual({ doubled: 42, file: path.join(dir, 'echo-worker.js') });
  });

  it('a TypeScript caller (.ts, under tsx or the test runner) runs the TypeScript worker through tsx', async () => {
    const m = await answer(spawnModuleWorker(path.join(dir, 'caller.ts'), 'echo-worker', { workerData: 4 }));
    expect(m).toEqual({ doubled: 8, file: path.join(dir, 'echo-worker.ts') });
  });

  it("the filesystem adapter's worker has a source beside its caller, so the build emits it beside filesystem-worker-events.js", () => {
    const adapter = path.join(__dirname, '../../src/adapters/filesystem');
    expect(fs.readFileSync(path.join(adapter, 'filesystem-worker-events.ts'), 'utf8')).toContain("spawnModuleWorker(__filename, 'filesystem-worker'");
    expect(fs.existsSync(path.join(adapter, 'filesystem-worker.ts'))).toBe(true);
  });
});
