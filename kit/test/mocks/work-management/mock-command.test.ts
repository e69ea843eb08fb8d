import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildKitProgram } from '../../../src/cli/kit-program';
import type { KitRuntime } from '../../../src/cli/kit-runtime';

describe('content-gateway mock work-management', () => {
  it('serves the generated organization on loopback, writes the token to a file of its own (never printed), and stops on shutdown', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-mock-cli-'));
    const credentials = path.join(dir, 'wm.json');
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    const runtime: KitRuntime = {
      env: {},
      print: (line) => lines.push(line),
      listen: (handler, options) =>
        new Promise((resolve) => {
          const server = http.createServer(handler);
          server.listen(options.port, options.host, () => resolve(server));
        }),
      onShutdown: (handler) => shutdown.push(handler),
      setExitCode: () => undefined,
    };
    await buildKitProgram(runtime).parseAsync([
      'node',
      'content-gateway',
      'mock',
      'work-management',
      '--port',
      '0',
      '--size',
      'tiny',
      '--seed',
      'cli',
      '--rate-limit',
      '100',
      '--download-ttl',
      '30',
      '--credentials-file',
      credentials,
    ]);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/api\/1\.0)/.exec(lines.join('\n'))?.[1];
    const { token } = JSON.parse(fs.readFileSync(credentials, 'utf8')) as { token: string };
    expect(url).toBeDefined();
    expect(token.length).toBeGreaterThan(16);
    expect(lines.join('\n')).toContain(`Bearer token: ${credentials} (readable by you only)`);
    expect(lines.join('\n')).not.toContain(token);
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);
    expect(lines.join('\n')).toMatch(/24 tasks/);
    try {
      const me = await fetch(`${url}/users/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { data: { resource_type: string } }).data.resource_type).toBe('user');
      expect((await fetch(`${url}/users/me`)).status).toBe(401);
      const state = await fetch(`${url?.replace('/api/1.0', '')}/_admin/state`, { headers: { authorization: `Bearer ${token}` } });
      const hostility = ((await state.json()) as { data: { hostility: { rateLimitPerMinute: number; downloadUrlTtlMs: number } } }).data.hostility;
      expect(hostility).toMatchObject({ rateLimitPerMinute: 100, downloadUrlTtlMs: 30_000 });
    } finally {
      for (const handler of shutdown) await handler();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes the token from WM_MOCK_TOKEN, and refuses it on the command line naming the variable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wm-mock-cli-'));
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    const runtime: KitRuntime = {
      env: { WM_MOCK_TOKEN: 'token-from-the-environment-0123' },
      print: (line) => lines.push(line),
      listen: (handler, options) =>
        new Promise((resolve) => {
          const server = http.createServer(handler);
          server.listen(options.port, options.host, () => resolve(server));
        }),
      onShutdown: (handler) => shutdown.push(handler),
      setExitCode: () => undefined,
    };
    try {
      const refused = buildKitProgram(runtime);
      const wmCommand = refused.commands.find((c) => c.name() === 'mock')?.commands.find((c) => c.name() === 'work-management');
      wmCommand?.exitOverride().configureOutput({ writeErr: () => undefined });
      await expect(refused.parseAsync(['node', 'kit', 'mock', 'work-management', '--port', '0', '--token', 'on-the-command-line'])).rejects.toThrow(
        /set WM_MOCK_TOKEN in the environment/,
      );
      await buildKitProgram(runtime).parseAsync([
        'node',
        'kit',
        'mock',
        'work-management',
        '--port',
        '0',
        '--size',
        'tiny',
        '--credentials-file',
        path.join(dir, 'wm.json'),
      ]);
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/api\/1\.0)/.exec(lines.join('\n'))?.[1];
      expect((await fetch(`${url}/users/me`, { headers: { authorization: 'Bearer token-from-the-environment-0123' } })).status).toBe(200);
    } finally {
      for (const handler of shutdown) await handler();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
