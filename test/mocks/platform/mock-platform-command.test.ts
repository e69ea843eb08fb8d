import http from 'node:http';
import { buildProgram } from '../../../src/cli/program';
import type { Runtime } from '../../../src/cli/runtime';
import { seedDemo } from '../../../src/demo/seed-demo';
import { startTestGateway, TEST_KEYS } from '../../helpers/test-gateway';

function testRuntime(lines: string[], shutdown: Array<() => Promise<void>>): Runtime {
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
    interactive: false,
  };
}

const grab = (lines: string[], re: RegExp): string => re.exec(lines.join('\n'))?.[1] ?? '';

describe('content-gateway mock platform', () => {
  it('without a gateway: serves the generated corpus, prints its URLs and credentials, answers and stops on shutdown', async () => {
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    await buildProgram(testRuntime(lines, shutdown)).parseAsync(['node', 'content-gateway', 'mock', 'platform', '--port', '0', '--remove', 'message.send@v1beta1']);
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

  it('with --gateway-url and --gateway-key: ingests the gateway at start', async () => {
    const gw = await startTestGateway('sqlite');
    await seedDemo(gw.database.db, gw.blobs);
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    try {
      await buildProgram(testRuntime(lines, shutdown)).parseAsync(['node', 'content-gateway', 'mock', 'platform', '--port', '0', '--gateway-url', gw.url, '--gateway-key', TEST_KEYS[0]]);
      expect(lines.join('\n')).toMatch(/Ingested http:\/\/127\.0\.0\.1:\d+: 13 files, 8 users, 5 groups \(0 failures\)/);
    } finally {
      for (const h of shutdown) await h();
      await gw.close();
    }
  });
});
