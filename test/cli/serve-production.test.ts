import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildProgram } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';
import { ConfigError } from '../../src/config/load-config';
import { useBuiltProgram } from '../helpers/built-program';

/** 32 characters: the shortest key production takes. */
const KEY = 'production-key-0123456789abcdefg';

const ROOT = path.join(__dirname, '../..');
const MAIN = useBuiltProgram();

/** `content-gateway serve` as a real process (the built program): its exit code and everything it printed. */
function serveProcess(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'serve'], { env: { PATH: process.env.PATH ?? '', ...env }, cwd: ROOT });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    // A gateway that starts anyway is stopped once it says it listens: the test then fails on its exit code.
    child.stdout.on('data', () => {
      if (/listening/.test(output)) child.kill('SIGTERM');
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** `serve` through the CLI program with a runtime that listens for real on a loopback port. */
async function serve(env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const shutdown: Array<() => Promise<void>> = [];
  let server: http.Server | undefined;
  const runtime: Runtime = {
    env,
    print: () => undefined,
    listen: (handler) =>
      new Promise((resolve) => {
        server = http.createServer(handler);
        server.listen(0, '127.0.0.1', () => resolve(server as http.Server));
      }),
    onShutdown: (handler) => shutdown.push(handler),
    setExitCode: () => undefined,
    interactive: false,
  };
  try {
    await (await buildProgram(runtime)).parseAsync(['node', 'content-gateway', 'serve']);
  } catch (error) {
    for (const handler of shutdown) await handler();
    throw error;
  }
  const s = server as http.Server;
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    stop: async () => {
      s.closeAllConnections();
      for (const handler of shutdown) await handler();
      await new Promise((r) => s.close(r));
    },
  };
}

function get(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/v1/files`, { headers: { Host: host, Authorization: `Bearer ${KEY}` }, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('serve in production (NODE_ENV=production) and the public host', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-prod-'));
    env = {
      NODE_ENV: 'production',
      GATEWAY_API_KEY: KEY,
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      LOG_LEVEL: 'silent',
      PORT: '0',
    };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses to start without PUBLIC_BASE_URL or ALLOWED_HOSTS, naming both', async () => {
    const outcome = await serve(env).then(
      async (gw) => {
        await gw.stop();
        return 'started';
      },
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(ConfigError);
    expect((outcome as ConfigError).message).toMatch(/PUBLIC_BASE_URL.*ALLOWED_HOSTS|ALLOWED_HOSTS.*PUBLIC_BASE_URL/);
  });

  it('starts with ALLOWED_HOSTS and refuses requests for any other host', async () => {
    const gw = await serve({ ...env, ALLOWED_HOSTS: 'gateway.example.com' });
    try {
      expect((await get(gw.url, 'gateway.example.com')).status).toBe(200);
      const evil = await get(gw.url, 'evil.example');
      expect(evil.status).toBe(400);
      expect((JSON.parse(evil.body) as { error: { code: string } }).error.code).toBe('INPUT_VALIDATION_FAILED');
    } finally {
      await gw.stop();
    }
  });

  it('starts with PUBLIC_BASE_URL alone (links come from it, not from the Host header)', async () => {
    const gw = await serve({ ...env, PUBLIC_BASE_URL: 'https://gateway.example.com' });
    try {
      const res = await get(gw.url, 'evil.example');
      expect(res.status).toBe(200);
      expect(res.body).not.toContain('evil.example');
    } finally {
      await gw.stop();
    }
  });

  it.each([
    ['one short key', 'a'],
    ['a short key beside a long one (rotation)', `${KEY},short-key-31-characters-0123456`],
  ])('a real process refuses to start with %s (under 32 characters), naming the setting, never the key', async (_what, keys) => {
    const { code, output } = await serveProcess({ ...env, GATEWAY_API_KEY: keys, PUBLIC_BASE_URL: 'https://gateway.example.com', LOG_LEVEL: 'info' });
    expect(code).not.toBe(0);
    expect(output).toMatch(/GATEWAY_API_KEY: .*at least 32 characters/);
    expect(output).not.toMatch(/listening/);
    for (const key of keys.split(',')) if (key.length < 32) expect(output).not.toContain(key.length > 1 ? key : `"${key}"`);
    expect(fs.existsSync(path.join(dir, 'gw.sqlite'))).toBe(false);
  });

  it('starts with keys of 32 characters', async () => {
    expect(KEY).toHaveLength(32);
    const gw = await serve({ ...env, PUBLIC_BASE_URL: 'https://gateway.example.com' });
    try {
      expect((await get(gw.url, 'gateway.example.com')).status).toBe(200);
    } finally {
      await gw.stop();
    }
  });

  it('keeps the development convenience: neither is needed outside production', async () => {
    const gw = await serve({ ...env, NODE_ENV: 'development', DEMO_CONTENT: 'off' });
    await gw.stop();
  });
});
