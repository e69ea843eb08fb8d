import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { httpGet } from './http-get';

export interface SampleServer {
  url: string;
  /** Process ids of the master and its workers (for memory readings). */
  pids(): number[];
  close(): Promise<void>;
}

const APP_DIR = path.join(__dirname, 'sample-server');
const READY_TIMEOUT_MS = 60_000;

/** Whether `gunicorn` can be started here (Debian: `apt-get install -y python3-flask gunicorn`). */
export function gunicornAvailable(): boolean {
  return spawnSync('gunicorn', ['--version'], { stdio: 'ignore' }).status === 0;
}

function children(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function waitUntilServing(url: string, key: string, child: ChildProcess): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`gunicorn exited with ${child.exitCode}`);
      const res = await httpGet(`${url}/v1/files/permissions/metadata`, agent, { Authorization: `Bearer ${key}` }).catch(() => undefined);
      if (res?.status === 200) return;
      if (Date.now() > deadline) throw new Error('the sample server did not answer within a minute');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    agent.destroy();
  }
}

/**
 * The sample gateway (kit/bench/sample-server/sample_gateway.py, Flask) under gunicorn with
 * `workers` sync workers on 127.0.0.1:<free port>, serving the files staged in `sqlitePath`
 * (each worker loads them into memory at start, as the platform's sample holds its items).
 */
export async function startSampleServer(sqlitePath: string, key: string, workers = 2): Promise<SampleServer> {
  const child = spawn('gunicorn', ['--workers', String(workers), '--bind', '127.0.0.1:0', '--chdir', APP_DIR, '--log-level', 'info', 'sample_gateway:app'], {
    env: { ...process.env, SAMPLE_SQLITE_PATH: sqlitePath, GATEWAY_API_KEY: key },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`gunicorn did not start listening: ${log.slice(-500)}`)), READY_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const at = /Listening at: (http:\/\/[0-9.]+:\d+)/.exec(log);
      if (at?.[1]) {
        clearTimeout(timer);
        resolve(at[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`gunicorn exited with ${code}: ${log.slice(-500)}`)));
  });
  // Drained, so a full pipe never stalls the workers' access log (off by default) or error log.
  child.stderr?.resume();
  await waitUntilServing(url, key, child);
  return {
    url,
    pids: () => (child.pid === undefined ? [] : [child.pid, ...children(child.pid)]),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
