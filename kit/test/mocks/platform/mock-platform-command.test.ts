import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildKitProgram } from '../../../src/cli/kit-program';
import type { KitRuntime } from '../../../src/cli/kit-runtime';

function testRuntime(lines: string[], shutdown: Array<() => Promise<void>>, env: Record<string, string> = {}): KitRuntime {
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

const grab = (lines: string[], re: RegExp): string => re.exec(lines.join('\n'))?.[1] ?? '';

interface WrittenCredentials {
  adminKey: string;
  dataApiKey: string;
  messageApiKey: string;
  clients: Record<'conversations' | 'data', { clientId: string; clientSecret: string }>;
}

describe('content-gateway mock platform', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mock-platform-cli-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('without a gateway: serves the generated corpus, prints its URLs, writes its credentials to a file of its own (none printed), answers and stops on shutdown', async () => {
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    const file = path.join(dir, 'platform.json');
    await buildKitProgram(testRuntime(lines, shutdown)).parseAsync([
      'node',
      'content-gateway',
      'mock',
      'platform',
      '--port',
      '0',
      '--remove',
      'message.send@v1beta1',
      '--credentials-file',
      file,
    ]);
    const base = grab(lines, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    const c = JSON.parse(fs.readFileSync(file, 'utf8')) as WrittenCredentials;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(lines.join('\n')).toContain(`Credentials (Data API and message API keys, client secrets, admin key): ${file}`);
    expect(lines.join('\n')).toMatch(/conversations client \S+, data client \S+/);
    for (const secret of [c.adminKey, c.dataApiKey, c.messageApiKey, c.clients.conversations.clientSecret, c.clients.data.clientSecret]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(lines.join('\n')).not.toContain(secret);
    }
    try {
      const ask = await fetch(`${base}/_admin/ask`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ada@example.test', question: 'cluster upgrade' }),
      });
      const body = (await ask.json()) as { messages: Array<{ citations?: unknown[] }> };
      expect(body.messages.at(-1)?.citations?.length).toBeGreaterThan(0);
      const beta = await fetch(`${base}/rest/v1beta1/messages/send`, {
        method: 'POST',
        headers: { authorization: c.messageApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hi', recipients: ['a@b.c'] }),
      });
      expect(beta.status).toBe(410);
    } finally {
      for (const h of shutdown) await h();
    }
  });

  it('takes its keys from the environment, and refuses every secret on the command line, naming the variable to set', async () => {
    const lines: string[] = [];
    const shutdown: Array<() => Promise<void>> = [];
    const env = { MOCK_PLATFORM_ADMIN_KEY: 'admin-key-from-the-environment-01' };
    for (const [flag, variable] of [
      ['--gateway-key', 'GATEWAY_API_KEY'],
      ['--admin-key', 'MOCK_PLATFORM_ADMIN_KEY'],
      ['--data-api-key', 'MOCK_PLATFORM_DATA_API_KEY'],
      ['--message-api-key', 'MOCK_PLATFORM_MESSAGE_API_KEY'],
      ['--gateway-client-secret', 'GATEWAY_CLIENT_SECRET'],
    ] as const) {
      const program = buildKitProgram(testRuntime(lines, shutdown, env));
      program.commands
        .find((c) => c.name() === 'mock')
        ?.commands.find((c) => c.name() === 'platform')
        ?.exitOverride()
        .configureOutput({ writeErr: () => undefined });
      const refused = await program.parseAsync(['node', 'kit', 'mock', 'platform', '--port', '0', flag, 'a-secret-on-the-command-line']).then(
        () => new Error('accepted'),
        (error: unknown) => error as Error,
      );
      expect(refused.message).toMatch(new RegExp(`set ${variable} in the environment`));
      expect(refused.message).not.toContain('a-secret-on-the-command-line');
    }
    await buildKitProgram(testRuntime(lines, shutdown, env)).parseAsync([
      'node',
      'kit',
      'mock',
      'platform',
      '--port',
      '0',
      '--credentials-file',
      path.join(dir, 'p.json'),
    ]);
    try {
      const base = grab(lines, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const state = await fetch(`${base}/_admin/state`, { headers: { authorization: `Bearer ${env.MOCK_PLATFORM_ADMIN_KEY}` } });
      expect(state.status).toBe(200);
    } finally {
      for (const h of shutdown) await h();
    }
  });
});
