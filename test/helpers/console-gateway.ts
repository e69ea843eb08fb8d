import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { seedDemo } from '../../src/demo/seed-demo';
import { runCli, startCli, type CliProcess } from '../e2e/cli-process';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './test-databases';

export const ADMIN_KEY = 'console-admin-key-0123456789abcdef0123';
export const CRAWL_KEY = 'console-crawl-key-0123456789abcdef0123';
export const ADMIN_BEARER = { Authorization: `Bearer ${ADMIN_KEY}` };
/** What a browser sends once asked (HTTP Basic, the key as password): an ambient credential, so actions need the CSRF token. */
export const basic = (key: string): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`operator:${key}`).toString('base64')}` });
export const ADMIN_BASIC = basic(ADMIN_KEY);

const LISTENING = /listening on http:\/\/localhost:(\d+)\//;

export interface ConsoleGateway {
  url: string;
  gateway: CliProcess;
  database: TestDatabase;
  /** The source tree the filesystem adapter syncs (`tree` staging). */
  tree: string;
  /** The environment the gateway and its syncs ran with (for more commands on the same staging). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface ConsoleGatewayOptions {
  /**
   * What staging holds: `tree`, two real `sync filesystem` runs of a small tree (the second still
   * failing the file the first failed); `demo`, the demo corpus (users, nested groups, access
   * lists, an inactive user, blobs) as its real sync stages it.
   */
  staging?: 'tree' | 'demo';
  /** More environment for the gateway (and its syncs). */
  env?: Record<string, string>;
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
 * The built gateway (`serve`, a real process on a loopback port) with the console on
 * (CONSOLE_ENABLED, CONSOLE_ADMIN_KEY; the crawl key CRAWL_KEY), over a staging database of its
 * own (SQLite, or a Postgres schema) filled as `options.staging` says.
 */
export async function startConsoleGateway(kind: DatabaseKind, options: ConsoleGatewayOptions = {}): Promise<ConsoleGateway> {
  const database = await createTestDatabase(kind);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-console-'));
  const tree = path.join(dir, 'tree');
  const blobDir = path.join(dir, 'blobs');
  const env = {
    ...database.env,
    BLOB_DIR: blobDir,
    DEMO_CONTENT: 'off',
    FILESYSTEM_ROOT: tree,
    GATEWAY_API_KEY: CRAWL_KEY,
    CONSOLE_ENABLED: 'true',
    CONSOLE_ADMIN_KEY: ADMIN_KEY,
    ...options.env,
  };
  if (options.staging === 'demo') {
    await seedDemo(database.db, new FsBlobStore(blobDir));
  } else {
    writeTree(tree);
    for (let i = 0; i < 2; i += 1) {
      const sync = await runCli(['sync', 'filesystem'], env);
      if (sync.code !== 0) throw new Error(`sync failed: ${sync.stdout}${sync.stderr}`);
    }
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
