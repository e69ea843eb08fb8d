import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { useBuiltProgram } from '../helpers/built-program';

const ROOT = path.join(__dirname, '../..');
/** Every test file that starts the CLI has the program built first (a no-op when nothing changed). */
const BUILT_MAIN = useBuiltProgram();

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Everything written to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Structured (JSON) log lines seen on stdout so far. */
  logs(): Array<Record<string, unknown>>;
  /** Resolves with the first stdout/stderr line matching, rejects if the process exits first. */
  waitForLine(test: (line: string) => boolean, what?: string): Promise<string>;
  /** The first JSON log line matching. */
  waitForLog(test: (log: Record<string, unknown>) => boolean, what?: string): Promise<Record<string, unknown>>;
  exited: Promise<CliExit>;
}

/**
 * Runs the built program (`node dist/src/main.js <args>`, built before the file's tests) as a real
 * child process with only the given environment (plus PATH). A TypeScript `program` (the kit's
 * entry) runs with Node loading tsx's hooks (`--import tsx`: CommonJS, and ESM for lazy
 * `import()`), rather than through the `tsx` launcher, because the launcher runs the program in
 * a grandchild: a SIGKILL or SIGSTOP sent to the launcher would never reach the process doing the
 * work (or holding the sync lock).
 */
export function startCli(args: string[], env: Record<string, string>, program = BUILT_MAIN): CliProcess {
  const entry = path.resolve(ROOT, program);
  const child = spawn(process.execPath, [...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    cwd: ROOT,
  });
  let out = '';
  let err = '';
  const lines: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];
  const onLine = (line: string): void => {
    lines.push(line);
    if (line.startsWith('{')) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
    for (const w of [...waiters]) {
      if (w.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  const splitter = (append: (s: string) => void) => {
    let partial = '';
    return (chunk: Buffer): void => {
      const text = chunk.toString();
      append(text);
      partial += text;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const p of parts) onLine(p);
    };
  };
  child.stdout.on(
    'data',
    splitter((s) => (out += s)),
  );
  child.stderr.on(
    'data',
    splitter((s) => (err += s)),
  );
  const exited = new Promise<CliExit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));

  const waitForLine = (test: (line: string) => boolean, what = String(test)): Promise<string> => {
    const seen = lines.find(test);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ test, resolve });
      void exited.then((e) => reject(new Error(`the CLI exited (${e.code ?? e.signal}) before ${what}:\n${out}\n${err}`)));
    });
  };
  const parse = (line: string): Record<string, unknown> | undefined => {
    if (!line.startsWith('{')) return undefined;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  return {
    child,
    pid: child.pid ?? -1,
    stdout: () => out,
    stderr: () => err,
    logs: () => logs,
    waitForLine,
    waitForLog: async (test, what) =>
      parse(
        await waitForLine((l) => {
          const log = parse(l);
          return log !== undefined && test(log);
        }, what),
      ) as Record<string, unknown>,
    exited,
  };
}

/** Runs the CLI (or, with `program`, another entry such as the kit's) to completion. */
export async function runCli(args: string[], env: Record<string, string>, program?: string): Promise<CliExit & { stdout: string; stderr: string }> {
  const p = startCli(args, env, program);
  const exit = await p.exited;
  return { ...exit, stdout: p.stdout(), stderr: p.stderr() };
}

/** Runs the verification kit's CLI (`npm run kit -- …`) to completion. */
export const runKitCli = (args: string[], env: Record<string, string>): ReturnType<typeof runCli> => runCli(args, env, 'kit/src/main.ts');

/** The `<source>: <mode> sync <status>: files added …; users and groups added …` summary line of a sync, parsed. */
export interface SyncSummaryLine {
  line: string;
  source: string;
  mode: string;
  resumed: boolean;
  status: string;
  /** Files. */
  counts: { added: number; changed: number; unchanged: number; deleted: number; failed: number };
  identities: { added: number; changed: number; unchanged: number; deleted: number };
}

const SUMMARY =
  /^([a-z][a-z0-9-]*): (full|incremental)( \(resumed\))? sync (\w+): files added (\d+), changed (\d+), unchanged (\d+), deleted (\d+), failed (\d+); users and groups added (\d+), changed (\d+), unchanged (\d+), deleted (\d+) in [\d.]+ s/m;

export function summaryLines(stdout: string): SyncSummaryLine[] {
  return stdout
    .split('\n')
    .map((line) => ({ line, m: SUMMARY.exec(line) }))
    .filter((x): x is { line: string; m: RegExpExecArray } => x.m !== null)
    .map(({ line, m }) => ({
      line,
      source: m[1] as string,
      mode: m[2] as string,
      resumed: m[3] !== undefined,
      status: m[4] as string,
      counts: { added: Number(m[5]), changed: Number(m[6]), unchanged: Number(m[7]), deleted: Number(m[8]), failed: Number(m[9]) },
      identities: { added: Number(m[10]), changed: Number(m[11]), unchanged: Number(m[12]), deleted: Number(m[13]) },
    }));
}

/** The only summary line of a one-adapter run (fails the test otherwise). */
export function summaryOf(stdout: string): SyncSummaryLine {
  const all = summaryLines(stdout);
  if (all.length !== 1) throw new Error(`expected one sync summary line, got ${all.length}:\n${stdout}`);
  return all[0] as SyncSummaryLine;
}
