import http from 'node:http';
import { buildKitProgram } from '../../../src/cli/kit-program';
import type { KitRuntime } from '../../../src/cli/kit-runtime';

function testRuntime(lines: string[], shutdown: Array<() => Promise<void>>): KitRuntime {
  return {
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
}

const grab = (lines: string[], re: RegExp): string => re.exec(lines.join('\n'))?.[1] ?? '';

describe('content-gateway mock platform', () => {
  it('without a gateway: serves the generated corpus, prints its URLs and credentials, answers and stops on shutdown', async () => {
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    await buildKitProgram(testRuntime(lines, shutdown)).parseAsync(['node', 'content-gateway', 'mock', 'platform', '--port', '0', '--remove', 'message.send@v1beta1']);
    const base = grab(lines, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const admin = grab(lines, /admin key: (\S+)/);
    const messageKey = grab(lines, /message API key: (\S+)/);
    expect(lines.join('\n')).toMatch(/Data API: .*API key: \S+/);
    expect(lines.join('\n')).toMatch(/conversations client \S+ \/ \S+; data client \S+ \/ \S+/);
    try {
      const ask = await fetch(`${base}/_admin/ask`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.test', question: 'cluster upgrade' }) });
      const body = (await ask.json()) as { messages: Array<{ citations?: unknown[] }> };
      expect(body.messages.at(-1)?.citations?.length).toBeGreaterThan(0);
      const beta = await fetch(`${base}/rest/v1beta1/messages/send`, { method: 'POST', headers: { authorization: messageKey, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hi', recipients: ['a@b.c'] }) });
      expect(beta.status).toBe(410);
    } finally {
      for (const h of shutdown) await h();
    }
  });
});
