import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../src/staging/database/create-db';
import { runCli } from '../e2e/cli-process';

jest.setTimeout(60_000);

/**
 * `sync --access-only` through the front door (the CLI as a child process): refused with the
 * flags that read content, and, for an adapter that cannot read access without content (the
 * filesystem's), a clear line and exit 1, no run recorded and nothing staged.
 */
describe('content-gateway sync --access-only', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-access-'));
    fs.mkdirSync(path.join(dir, 'tree'));
    fs.writeFileSync(path.join(dir, 'tree', 'a.txt'), 'a');
    env = { SQLITE_PATH: path.join(dir, 'gw.sqlite'), BLOB_DIR: path.join(dir, 'blobs'), FILESYSTEM_ROOT: path.join(dir, 'tree') };
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
    const r = await runCli(['sync', 'filesystem', '--access-only'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /^filesystem: sync could not run — filesystem cannot read access without content \(it has no permissions\(\) and standalone liveFiles\(\)\): no access-only run$/m,
    );
    const db = createDb({ sqlitePath: env.SQLITE_PATH as string });
    try {
      expect(Number(((await db('sync_runs').count({ n: '*' }).first()) as { n: number | string }).n)).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});
