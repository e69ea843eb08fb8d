import { PlatformAuthError } from '../../src/platform/platform-error';
import net from 'node:net';
import { ConfigError } from '../../src/config/load-config';
import { describeFailure } from '../../src/cli/describe-failure';
import { UsageError } from '../../src/cli/usage-error';
import { runCli } from '../e2e/cli-process';

/** Ordinary mistakes print one clean line saying what to change; a stack only with LOG_LEVEL=debug. */
describe('what a failed command prints', () => {
  it('a busy port names the setting to change, in one line', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const r = await runCli(['serve'], {
        PORT: String(port),
        HOST: '127.0.0.1',
        SQLITE_PATH: ':memory:',
        DEMO_CONTENT: 'off',
        GATEWAY_API_KEY: 'describe-failure-key-0123456789',
      });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(`error: 127.0.0.1:${port} is already in use: set PORT (or HOST) to a free one.`);
    } finally {
      holder.close();
    }
  });

  it('hash-secret without a secret says where to put it, with no stack', async () => {
    const r = await runCli(['hash-secret', 'crawler'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: hash-secret needs the client secret: set CLIENT_SECRET in the environment, or give --secret-file <path> (a file only you can read).\n',
    );
  });

  it('a database that refuses the connection is one line naming DATABASE_URL', async () => {
    const r = await runCli(['migrate'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', DATABASE_CONNECT_TIMEOUT_MS: '2000' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: the Postgres staging database \(DATABASE_URL\) cannot be reached: .*Check that it is running and DATABASE_URL is right\.\n$/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('anything else: its message and how to see the stack; the stack itself with LOG_LEVEL=debug', () => {
    const bug = new TypeError('x is not a function');
    expect(describeFailure(bug, {})).toBe('error: x is not a function\n(set LOG_LEVEL=debug to see where it came from)');
    expect(describeFailure(bug, { LOG_LEVEL: 'debug' })).toBe(bug.stack);
    expect(describeFailure(new UsageError('use --url'), {})).toBe('error: use --url');
    const refused = new PlatformAuthError("The platform's Data API answered 403 Forbidden for https://api.eu.platform.example/export/v1/records (FORBIDDEN)", {
      status: 403,
    });
    expect(describeFailure(refused, {})).toBe(`error: ${refused.message}`);
    expect(describeFailure(new ConfigError(['PORT: expected a number']), {})).toBe('Invalid configuration:\n  - PORT: expected a number');
  });
});
