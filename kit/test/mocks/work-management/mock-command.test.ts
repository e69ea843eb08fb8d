import http from 'node:http';
import { buildKitProgram } from '../../../src/cli/kit-program';
import type { KitRuntime } from '../../../src/cli/kit-runtime';

describe('content-gateway mock work-management', () => {
  it('serves the generated organization on loopback, prints the token, and stops on shutdown', async () => {
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
    await buildKitProgram(runtime).parseAsync(['node', 'content-gateway', 'mock', 'work-management', '--port', '0', '--size', 'tiny', '--seed', 'cli', '--rate-limit', '100', '--download-ttl', '30']);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/api\/1\.0)/.exec(lines.join('\n'))?.[1];
    const token = /Bearer token: (\S+)/.exec(lines.join('\n'))?.[1];
    expect(url).toBeDefined();
    expect(token).toBeDefined();
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
    }
  });
});
