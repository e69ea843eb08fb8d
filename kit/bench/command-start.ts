/**
 * `command-start`: how long the gateway's own commands take to start, as whole processes of the
 * built program (`node dist/src/main.js`, built by `npm run build` first), each against a bare
 * `node -e ''` started in the same run: `--help`, `migrate` on an up-to-date SQLite database, and
 * `sync filesystem` of a small tree that has not changed (the demo corpus, 13 files). The figure is a command's own start:
 * its median wall time minus the bare start's. `--program <main.js>` measures another build (the
 * code before a change, for a before/after pair).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measurement, type BenchmarkResult } from './report';

const ROOT = path.join(__dirname, '../..');
const RUNS = 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** A sync's own report of how long its run took (`… in 0.2 s`), in ms; 0 for other commands. */
const reportedRunMs = (stdout: string): number => Number(/ in ([\d.]+) s\b/.exec(stdout)?.[1] ?? 0) * 1000;

/**
 * The median time (ms) of `args` run by Node as a whole process, after one warm-up run, less the
 * time a sync reports its run took: what is left is the command's start and end.
 */
function timed(args: string[], env: Record<string, string>): number {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i += 1) {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
    if (i > 0) times.push(performance.now() - started - reportedRunMs(run.stdout.toString()));
  }
  return median(times);
}

export async function commandStart(program = path.join(ROOT, 'dist/src/main.js')): Promise<BenchmarkResult> {
  const started = performance.now();
  if (!fs.existsSync(program)) throw new Error(`${program} is missing: run \`npm run build\` first`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'command-start-'));
  try {
    const tree = path.join(ROOT, 'src/demo/corpus');
    const env = { SQLITE_PATH: path.join(dir, 'gateway.sqlite'), BLOB_DIR: path.join(dir, 'blobs'), DEMO_CONTENT: 'off', FILESYSTEM_ROOT: tree };
    // The database and the tree's first (full) sync exist before anything is timed.
    timed([program, 'sync', 'filesystem'], env);
    const bare = timed(['-e', ''], {});
    const figures = [
      ['--help', timed([program, '--help'], env)],
      ['migrate on an up-to-date database', timed([program, 'migrate'], env)],
      ['sync filesystem of an unchanged 13-file tree (less the run it reports)', timed([program, 'sync', 'filesystem'], env)],
    ] as const;
    return {
      name: 'command-start',
      durationMs: performance.now() - started,
      measurements: figures.map(([what, ms]) =>
        measurement({
          benchmark: 'command-start',
          metric: `${what}: own start (minus a bare node start)`,
          unit: 'ms',
          value: ms - bare,
          baseline: bare,
          goal: { on: 'value', op: '<', target: 500 },
        }),
      ),
      notes: [
        `${path.relative(ROOT, program)}; medians of ${RUNS} runs; bare \`node -e ''\` ${bare.toFixed(0)} ms; totals: ${figures.map(([what, ms]) => `${what} ${ms.toFixed(0)} ms`).join(', ')}`,
      ],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const at = process.argv.indexOf('--program');
  void commandStart(at > 0 ? path.resolve(process.argv[at + 1] ?? '') : undefined).then((result) => console.log(JSON.stringify(result, null, 2)));
}
