import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, runKitCli } from '../e2e/cli-process';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

/**
 * Issue 29 (8): secrets never on a command line. `conformance` refuses `--key <key>` with one line
 * naming the environment variables and `--key-file`, and reads the key from a file instead;
 * `hash-secret` refuses a secret given as an argument and reads CLIENT_SECRET or `--secret-file`.
 */
jest.setTimeout(120_000);

describe('content-gateway conformance: the key from the environment or a file, never the command line', () => {
  let dir: string;
  let gateway: TestGateway;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-conf-key-'));
    gateway = await startTestGateway('sqlite');
  });
  afterAll(async () => {
    await gateway.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const keyFile = (name: string, content: string, mode = 0o600): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content, { mode });
    fs.chmodSync(file, mode);
    return file;
  };

  it('refuses --key <key> with one line that names CONFORMANCE_API_KEY, GATEWAY_API_KEY and --key-file, and never echoes the key', async () => {
    const secret = 'a-secret-key-on-the-command-line-0123';
    const r = await runCli(['conformance', '--url', gateway.url, '--key', secret], {});
    expect(r.code).not.toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/CONFORMANCE_API_KEY/);
    expect(lines[0]).toMatch(/GATEWAY_API_KEY/);
    expect(lines[0]).toMatch(/--key-file <path>/);
    expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('reads the key from --key-file (trimmed): a wrong key is refused by the gateway naming the file, the right one crawls', async () => {
    const wrong = keyFile('wrong-key', `${TEST_KEYS[0]}-not\n`);
    const refused = await runCli(['conformance', '--url', gateway.url, '--key-file', wrong, '--out', path.join(dir, 'r1')], {});
    expect({ code: refused.code, stdout: refused.stdout.trim() }).toEqual({
      code: 4,
      stdout: `conformance: ${gateway.url} refused the key (401): check --key-file ${wrong}`,
    });
    const right = keyFile('right-key', `  ${TEST_KEYS[0]}\n\n`);
    const who = await runCli(['conformance', 'who-can-see', 'nothing-here', '--url', gateway.url, '--key-file', right], {});
    expect({ code: who.code, stdout: who.stdout.trim() }).toEqual({ code: 1, stdout: 'File nothing-here is not served by the gateway.' });
  });

  it('refuses a missing, an empty or a world-readable key file with one line naming the file', async () => {
    const missing = path.join(dir, 'no-such-key');
    const empty = keyFile('empty-key', ' \n');
    const cases: Array<[string, RegExp]> = [
      [missing, /cannot be read/],
      [empty, /is empty/],
    ];
    if (process.platform !== 'win32') cases.push([keyFile('open-key', `${TEST_KEYS[0]}\n`, 0o644), /readable by every user.*chmod 600/]);
    for (const [file, why] of cases) {
      const r = await runCli(['conformance', '--url', gateway.url, '--key-file', file], {});
      expect({ file, code: r.code }).toEqual({ file, code: 1 });
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(file);
      expect(lines[0]).toMatch(why);
    }
  });

  it('hash-secret refuses a secret given as an argument (one line, never echoed) and reads it from --secret-file', async () => {
    const secret = 'platform-client-secret-0123456789abcdef';
    const refused = await runCli(['hash-secret', 'crawler', secret], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/CLIENT_SECRET.*--secret-file <path>/);
    expect(refused.stdout + refused.stderr).not.toContain(secret);
    const fromFile = await runCli(['hash-secret', 'crawler', '--secret-file', keyFile('client-secret', `${secret}\n`)], {});
    expect({ code: fromFile.code, stderr: fromFile.stderr }).toEqual({ code: 0, stderr: '' });
    expect(fromFile.stdout).toMatch(/^crawler:scrypt\$\S+\n$/);
  });
});

describe('npm run harness: a Postgres password never on the command line', () => {
  it('refuses --database-url with a password in one line naming HARNESS_DATABASE_URL, and never echoes the password', async () => {
    const password = 'harness-db-password-0123';
    const r = await runKitCli(['harness', '--database-url', `postgres://gateway:${password}@127.0.0.1:1/none`], {});
    expect(r.code).not.toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--database-url/);
    expect(lines[0]).toMatch(/HARNESS_DATABASE_URL/);
    expect(r.stdout + r.stderr).not.toContain(password);
  });

  it('takes the URL from HARNESS_DATABASE_URL: a database that refuses the connection is named without its password', async () => {
    const password = 'harness-db-password-4567';
    const r = await runKitCli(['harness', '--tasks', '50'], { HARNESS_DATABASE_URL: `postgres://gateway:${password}@127.0.0.1:1/none` });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/127\.0\.0\.1:1/);
    expect(r.stdout + r.stderr).not.toContain(password);
  });
});
