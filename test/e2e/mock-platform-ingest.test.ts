import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildKitProgram } from '@content-gateway/kit/src/cli/kit-program';
import type { KitRuntime } from '@content-gateway/kit/src/cli/kit-runtime';
import { seedDemo } from '../../src/demo/seed-demo';
import { startTestGateway, TEST_KEYS } from '../helpers/test-gateway';

function testRuntime(lines: string[], shutdown: Array<() => Promise<void>>, env: Record<string, string>): KitRuntime {
  return {
    env,
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
  it('with --gateway-url and GATEWAY_API_KEY in the environment: ingests the gateway at start', async () => {
    const gw = await startTestGateway('sqlite');
    await seedDemo(gw.database.db, gw.blobs);
    const credentials = path.join(os.tmpdir(), `mock-platform-ingest-${process.pid}.json`);
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    try {
      await buildKitProgram(testRuntime(lines, shutdown, { GATEWAY_API_KEY: TEST_KEYS[0] })).parseAsync([
        'node',
        'kit',
        'mock',
        'platform',
        '--port',
        '0',
        '--gateway-url',
        gw.url,
        '--credentials-file',
        credentials,
      ]);
      expect(lines.join('\n')).toMatch(/Ingested http:\/\/127\.0\.0\.1:\d+: 13 files, 8 users, 5 groups \(0 failures\)/);
    } finally {
      for (const h of shutdown) await h();
      await gw.close();
      fs.rmSync(credentials, { force: true });
    }
  });
});
