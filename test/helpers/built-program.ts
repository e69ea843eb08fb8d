import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEST_RUN_VARIABLE } from '../setup/test-run';

const ROOT = path.join(__dirname, '../..');
/** The built program: what `npm start`, `npm run cli` and the container run. */
export const BUILT_MAIN = path.join(ROOT, 'dist/src/main.js');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
/** Held by the one test process building at a time: two `tsc -b` writing dist/ at once would race. */
const LOCK = path.join(ROOT, 'dist/.test-build.lock');
/** A fresh clone's first, full build on a busy machine: minutes, not the default 30 s. */
const BUILD_TIMEOUT_MS = 600_000;

/** The test run that last built the program (a `tsc -b` up-to-date check costs ~0.5 s of CPU per test file otherwise). */
const STAMP = path.join(ROOT, 'dist/.test-build.run');

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** True when the lock's holder is no longer running (a test run that was killed mid-build). */
function holderGone(): boolean {
  const pid = Number(fs.readFileSync(LOCK, { encoding: 'utf8', flag: 'r' }).trim());
  if (!Number.isInteger(pid) || pid <= 0) return false; // being written
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function takeLock(): Promise<void> {
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    try {
      if (holderGone()) fs.rmSync(LOCK, { force: true });
      else await delay(200);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // released meanwhile
    }
  }
}

/**
 * `npm run build`'s incremental build (a no-op when no source changed since the last one). Type
 * errors do not stop it: tsc still writes the program, and type errors are `npm run lint`'s job,
 * as under the test runner.
 */
async function build(): Promise<void> {
  await takeLock();
  try {
    // One build per test run: the first test file to ask builds, the others find the run's stamp.
    const run = process.env[TEST_RUN_VARIABLE];
    if (run && readIfExists(STAMP) === run && fs.existsSync(BUILT_MAIN)) return;
    await promisify(execFile)(process.execPath, [TSC, '-b', 'tsconfig.build.json'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }).catch(() => undefined);
    if (run) fs.writeFileSync(STAMP, run);
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
  if (!fs.existsSync(BUILT_MAIN)) throw new Error(`\`tsc -b tsconfig.build.json\` did not write ${BUILT_MAIN}: run \`npm run build\` to see why`);
}

let built: Promise<void> | undefined;

/**
 * Has the calling test file build the program before its tests (once per test run), and
 * returns its path. Test processes start the built program, as operators do: starting it is a
 * plain `node` start, where running the sources through tsx costs a compile hook in every process.
 */
export function useBuiltProgram(): string {
  beforeAll(() => (built ??= build()), BUILD_TIMEOUT_MS);
  return BUILT_MAIN;
}
