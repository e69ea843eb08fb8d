import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, startCli, type CliProcess } from '../e2e/cli-process';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from '../helpers/test-databases';

export const ADMIN_KEY = 'console-admin-key-0123456789abcdef0123';
export const CRAWL_KEY = 'console-crawl-key-0123456789abcdef0123';
export const ADMIN_BEARER = { Authorization: `Bearer ${ADMIN_KEY}` };
export const basic = (key: string): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`operator:${key}`).toString('base64')}` });

const LISTENING = /listening on http:\/\/localhost:(\d+)\//;

export interface ConsoleGateway {
  url: string;
  gateway: CliProcess;
  database: TestDatabase;
  /** The source tree the filesystem adapter syncs. */
  tree: string;
  /** The environment the gateway and its syncs ran with (for more commands on the same staging). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A source tree whose sidecar grants a file to a user the directory does not list: that file
 * fails (a real failed item, with its reason), the rest syncs, so the run is a partial success.
 */
function writeTree(tree: string): void {
  fs.mkdirSync(path.join(tree, 'team'), { recursive: true });
  fs.writeFileSync(
    path.join(tree, '_directory.yaml'),
    'users:\n  - { id: ana, email: ana@corp.example, full_name: Ana, active: true }\n  - { id: bo, email: bo@corp.example, full_name: Bo, active: true }\ngroups:\n  - { id: team, name: Team, members: [{ user: ana }, { user: bo }] }\n',
  );
  fs.writeFileSync(path.join(tree, 'welcome.html'), '<p>Welcome</p>');
  fs.writeFileSync(path.join(tree, 'team', 'notes.html'), '<p>Notes</p>');
  fs.writeFileSync(path.join(tree, 'team', 'plan.html'), '<p>Plan</p>');
  fs.writeFileSync(path.join(tree, 'team', '_access.yaml'), 'groups: [team]\nfiles:\n  plan.html: { users: [ghost] }\n');
}

/**
 * The built gateway (`serve`, a real process on a loopback port) with the console on, over a
 * staging database two real `sync filesystem` runs filled (the second still failing the file the
 * first failed), on SQLite or on a Postgres schema of its own.
 */
export async function startConsoleGateway(kind: DatabaseKind, extraEnv: Record<string, string> = {}): Promise<ConsoleGateway> {
  const database = await createTestDatabase(kind);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-console-'));
  const tree = path.join(dir, 'tree');
  writeTree(tree);
  const env = {
    ...database.env,
    BLOB_DIR: path.join(dir, 'blobs'),
    DEMO_CONTENT: 'off',
    FILESYSTEM_ROOT: tree,
    GATEWAY_API_KEY: CRAWL_KEY,
    CONSOLE_ENABLED: 'true',
    CONSOLE_ADMIN_KEY: ADMIN_KEY,
    ...extraEnv,
  };
  for (let i = 0; i < 2; i += 1) {
    const sync = await runCli(['sync', 'filesystem'], env);
    if (sync.code !== 0) throw new Error(`sync failed: ${sync.stdout}${sync.stderr}`);
  }
  const gateway = startCli(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1', WEB_CONCURRENCY: '1', LOG_LEVEL: 'info' });
  const port = LISTENING.exec(await gateway.waitForLine((line) => LISTENING.test(line), 'the gateway listening'))?.[1];
  return {
    url: `http://127.0.0.1:${port}`,
    gateway,
    database,
    tree,
    env,
    close: async () => {
      if (gateway.child.exitCode === null) {
        gateway.child.kill('SIGTERM');
        await gateway.exited;
      }
      await database.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
