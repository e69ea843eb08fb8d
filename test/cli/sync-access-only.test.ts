import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../src/staging/database/create-db';
import { runCli, startCli } from '../e2e/cli-process';

jest.setTimeout(60_000);

/**
 * `sync --access-only` through the front door (the CLI as a child process): refused with the
 * flags that read content; for an adapter that cannot read access without content (the example
 * wiki's), a clear line and exit 1, no run recorded and nothing staged; for one that can (the
 * filesystem's), an access run after a full one.
 */
describe('content-gateway sync --access-only', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-access-'));
    fs.mkdirSync(path.join(dir, 'tree'));
    fs.writeFileSync(path.join(dir, 'tree', 'a.txt'), 'a');
    env = {
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      FILESYSTEM_ROOT: path.join(dir, 'tree'),
      EXAMPLE_WIKI_URL: 'http://127.0.0.1:9/api/v1',
      EXAMPLE_WIKI_TOKEN: 'never-used-token',
    };
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is a usage error with --full or --dry-run (it reads no content)', async () => {
    for (const flag of ['--full', '--dry-run']) {
      const r = await runCli(['sync', 'filesystem', '--access-only', flag], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: --access-only reads no content: it cannot be combined with --full or --dry-run\.\n/);
    }
  });

  it('says an adapter without permissions() and a standalone liveFiles() cannot run access-only, and exits 1 with no run recorded', async () => {
    const r = await runCli(['sync', 'example-wiki', '--access-only'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^example-wiki: sync could not run — example-wiki cannot read access without content \(it has no permissions\(\) and standalone liveFiles\(\)\): no access-only run$/m,
    );
    const db = createDb({ sqlitePath: env.SQLITE_PATH as string });
    try {
      expect(Number(((await db('sync_runs').count({ n: '*' }).first()) as { n: number | string }).n)).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it('runs access-only for an adapter that reads access without content (the filesystem), after a full run', async () => {
    fs.writeFileSync(path.join(dir, 'tree', '_directory.yaml'), 'users:\n  - { id: ana, email: ana@example.com, full_name: Ana, active: true }\n');
    fs.writeFileSync(path.join(dir, 'tree', '_access.yaml'), 'users: [ana]\n');
    expect((await runCli(['sync', 'filesystem', '--full'], env)).code).toBe(0);
    const r = await runCli(['sync', 'filesystem', '--access-only'], env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^filesystem: access sync succeeded: /m);
  });

  it('is scheduled by sync-worker --access-every beside the content runs (SQLite: rounds in its own process), and applies a revocation they do not read', async () => {
    const workerEnv = { ...env, SQLITE_PATH: path.join(dir, 'worker.sqlite') };
    fs.writeFileSync(path.join(dir, 'tree', '_directory.yaml'), 'users:\n  - { id: ana, email: ana@example.com, full_name: Ana, active: true }\n');
    fs.writeFileSync(path.join(dir, 'tree', '_access.yaml'), 'users: [ana]\n');
    const worker = startCli(['sync-worker', 'filesystem', '--every', '1h', '--access-every', '1s'], workerEnv);
    const db = createDb({ sqlitePath: workerEnv.SQLITE_PATH });
    const grants = async () =>
      (await db('file_permissions').where({ file_id: 'filesystem:a.txt' }).select('principal_id')).map((r: { principal_id: string }) => r.principal_id);
    const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
      for (let i = 0; i < 300; i++) {
        const found = await probe().catch(() => undefined);
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${what} never came; worker said: ${worker.stdout()} ${worker.stderr()}`);
    };
    try {
      await until('access granted to ana by the first run', async () => ((await grants()).includes('filesystem:ana') ? true : undefined));
      fs.writeFileSync(path.join(dir, 'tree', '_access.yaml'), '{}\n');
      await until('the revocation', async () => ((await grants()).length === 0 ? true : undefined));
      const runs = (await db('sync_runs').orderBy('id').select('mode', 'status')) as Array<{ mode: string; status: string }>;
      expect(runs.filter((r) => r.mode !== 'access')).toEqual([{ mode: 'full', status: 'succeeded' }]);
      expect(runs.filter((r) => r.mode === 'access' && r.status === 'succeeded').length).toBeGreaterThan(0);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await db.destroy();
    }
  });
});
