import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/**
 * A real `content-gateway <command>` process (`node --import tsx src/main.ts`, so `pid` is the
 * gateway itself and signals reach it directly; cluster workers inherit the loader). Its stdout
 * and stderr are kept for `waitFor`; LOG_LEVEL defaults to info.
 */
export interface GatewayProcess {
  pid: number;
  output(): string;
  /** Resolves with the first match in the output after `from` (a previous `output().length`). */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  exited: Promise<number | string | null>;
  kill(signal: NodeJS.Signals): void;
}

export function startGatewayProcess(args: string[], env: Record<string, string>): GatewayProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const listener of listeners) listener();
  });
  return {
    pid: child.pid as number,
    output: () => out,
    exited,
    kill: (signal) => child.kill(signal),
    waitFor: (pattern, options = {}) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = out.slice(options.from ?? 0).match(pattern);
          if (m || ended) {
            listeners.delete(check);
            clearTimeout(timer);
            if (m) resolve(m);
            else reject(new Error(`gateway exited before ${pattern}:\n${out.slice(-3000)}`));
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} within ${options.timeoutMs ?? 60_000} ms:\n${out.slice(-3000)}`));
        }, options.timeoutMs ?? 60_000);
        listeners.add(check);
        check();
      }),
  };
}
