import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/**
 * What a started program loads. `recordingEnv(dir)` is the environment that has each of its
 * processes write, as it exits, every module file it loaded to `dir/<pid>.json`
 * (record-loaded-modules.cjs, preloaded); `recordedModules(dir)` reads those lists back, one per
 * process.
 */
export function recordingEnv(dir: string): Record<string, string> {
  return { NODE_OPTIONS: `--require ${path.join(__dirname, 'record-loaded-modules.cjs')}`, LOADED_MODULES_DIR: dir };
}

export function recordedModules(dir: string): string[][] {
  return fs.readdirSync(dir).map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as string[]);
}

/** A loaded file relative to the project, `/`-separated; the built program's files (dist/src/…) as the sources they are built from. */
export function projectPathOf(file: string): string {
  return path
    .relative(ROOT, file)
    .split(path.sep)
    .join('/')
    .replace(/^dist\//, '');
}
