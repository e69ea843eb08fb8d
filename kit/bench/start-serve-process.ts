import { spawn } from 'node:child_process';
import path from 'node:path';

/** The repository root: the gateway runs as its own program (a process, not an import). */
const ROOT = path.join(__dirname, '../..');

export interface ServeProcess {
  url: string;
  /** SIGTERM (the gateway drains) and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * `content-gateway serve` as a real process (through tsx's CommonJS hook, which cluster workers
 * inherit), with only `env` (plus PATH): for figures that a gateway inside the bench process
 * cannot give, such as several worker processes. Resolves once it prints where it listens.
 */
export function startServeProcess(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts'), 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_CONTENT: 'off', ...env },
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const port = /listening on https?:\/\/localhost:(\d+)\//.exec(output)?.[1];
      if (!port) return;
      child.stdout?.off('data', onData);
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`serve exited before listening:\n${output.slice(-2000)}`)));
  });
}
