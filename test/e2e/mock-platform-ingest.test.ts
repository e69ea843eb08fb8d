import http from 'node:http';
import { buildKitProgram } from '@content-gateway/kit/src/cli/kit-program';
import type { KitRuntime } from '@content-gateway/kit/src/cli/kit-runtime';
import { seedDemo } from '../../src/demo/seed-demo';
import { startTestGateway, TEST_KEYS } from '../helpers/test-gateway';

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

describe('kit: mock platform against a gateway', () => {
  it('with --gateway-url and --gateway-key: ingests the gateway at start', async () => {
    const gw = await startTestGateway('sqlite');
    await seedDemo(gw.database.db, gw.blobs);
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    try {
      await buildKitProgram(testRuntime(lines, shutdown)).parseAsync(['node', 'content-gateway', 'mock', 'platform', '--port', '0', '--gateway-url', gw.url, '--gateway-key', TEST_KEYS[0]]);
      expect(lines.join('\n')).toMatch(/Ingested http:\/\/127\.0\.0\.1:\d+: 13 files, 8 users, 5 groups \(0 failures\)/);
    } finally {
      for (const h of shutdown) await h();
      await gw.close();
    }
  });
});
