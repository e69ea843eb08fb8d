import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../src/staging/database/create-db';
import { runCli, summaryOf } from '../e2e/cli-process';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';

/**
 * Issue 29 (13): `check <adapter>` validates an adapter's settings and that its source answers,
 * without a sync and without touching staging; `sync --dry-run` says what a sync would add, change
 * and delete (counts and the first ids) and writes nothing to staging or the blob store.
 */
jest.setTimeout(180_000);

const DIRECTORY = 'users:\n  - { id: ana, email: ana@corp.example, full_name: Ana, active: true }\ngroups: []\n';
const ACCESS = 'users: [ana]\n';

/** Every row of every table, and every file of the blob folder: what a dry run must leave as it was. */
async function snapshot(sqlitePath: string, blobDir: string): Promise<unknown> {
  const db = createDb({ sqlitePath });
  try {
    const tables = (await db('sqlite_master').where({ type: 'table' }).orderBy('name').pluck('name')) as string[];
    const rows: Record<string, unknown> = {};
    for (const table of tables) rows[table] = await db(table).select();
    const blobs = fs.existsSync(blobDir) ? fs.readdirSync(blobDir, { recursive: true }).map(String).sort() : [];
    return { rows, blobs };
  } finally {
    await db.destroy();
  }
}

describe('content-gateway check and sync --dry-run', () => {
  let dir: string;
  let root: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-check-'));
    root = path.join(dir, 'tree');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, '_directory.yaml'), DIRECTORY);
    fs.writeFileSync(path.join(root, '_access.yaml'), ACCESS);
    fs.writeFileSync(path.join(root, 'one.md'), '# One\n\nfirst\n');
    fs.writeFileSync(path.join(root, 'two.md'), '# Two\n\nsecond\n');
    fs.writeFileSync(path.join(root, 'three.pdf'), '%PDF-1.4\n% a tiny pdf for the test\n%%EOF\n');
    env = { SQLITE_PATH: path.join(dir, 'data', 'gw.sqlite'), BLOB_DIR: path.join(dir, 'data', 'blobs'), FILESYSTEM_ROOT: root };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('check filesystem: exit 0 when the settings hold and the tree and directory file read, without creating staging', async () => {
    const r = await runCli(['check', 'filesystem'], env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^filesystem: ok\b/m);
    expect(fs.existsSync(env.SQLITE_PATH as string)).toBe(false);
    expect(fs.existsSync(env.BLOB_DIR as string)).toBe(false);
  });

  it('check: one line per problem and a non-zero exit for a missing root, a broken directory file, an unconfigured adapter', async () => {
    const missing = await runCli(['check', 'filesystem'], { ...env, FILESYSTEM_ROOT: path.join(dir, 'nowhere') });
    expect(missing.code).not.toBe(0);
    expect(missing.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^filesystem: .*nowhere/)]);

    fs.writeFileSync(path.join(root, '_directory.yaml'), 'users: [ { id: ana, email: \n');
    const broken = await runCli(['check', 'filesystem'], env);
    expect(broken.code).not.toBe(0);
    expect(broken.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^filesystem: .*_directory\.yaml/)]);

    const all = await runCli(['check', '--all'], { SQLITE_PATH: env.SQLITE_PATH as string, FILESYSTEM_ROOT: root });
    expect(all.code).not.toBe(0);
    const lines = all.stdout.trim().split('\n');
    expect(lines.find((l) => l.startsWith('filesystem: '))).toMatch(/^filesystem: .*_directory\.yaml/);
    expect(lines.find((l) => l.startsWith('work-management: '))).toMatch(/^work-management: settings: .*WORK_MANAGEMENT_/);
    expect(fs.existsSync(env.SQLITE_PATH as string)).toBe(false);
  });

  it('sync --dry-run reports what would be added, changed and deleted, with ids, and writes nothing; the real sync then does just that', async () => {
    const first = await runCli(['sync', 'filesystem'], env);
    expect(first.code).toBe(0);
    fs.writeFileSync(path.join(root, 'one.md'), '# One\n\nfirst, edited\n');
    fs.rmSync(path.join(root, 'two.md'));
    fs.writeFileSync(path.join(root, 'four.md'), '# Four\n\nnew\n');
    fs.writeFileSync(path.join(root, 'five.pdf'), '%PDF-1.4\n% another tiny pdf\n%%EOF\n');
    const before = await snapshot(env.SQLITE_PATH as string, env.BLOB_DIR as string);

    const dry = await runCli(['sync', 'filesystem', '--dry-run'], env);
    expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: '' });
    expect(dry.stdout).toMatch(/^filesystem: dry run of an? (full|incremental) sync: would add 2, change 1, delete 1 files/m);
    expect(dry.stdout).toMatch(/^ {2}add: .*four\.md/m);
    expect(dry.stdout).toMatch(/^ {2}add: .*five\.pdf/m);
    expect(dry.stdout).toMatch(/^ {2}change: .*one\.md/m);
    expect(dry.stdout).toMatch(/^ {2}delete: .*two\.md/m);
    expect(dry.stdout).toMatch(/nothing was written/);
    expect(await snapshot(env.SQLITE_PATH as string, env.BLOB_DIR as string)).toEqual(before);

    const real = summaryOf((await runCli(['sync', 'filesystem'], env)).stdout);
    expect(real.counts).toMatchObject({ added: 2, changed: 1, deleted: 1 });
  });
});

describe('content-gateway check work-management, against the mock on loopback', () => {
  let m: RunningMock;
  beforeAll(async () => {
    m = await startMock({
      seed: 'cli-check',
      size: { tasks: 10, personalWorkspace: false },
      hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 },
    });
  });
  afterAll(() => m.close());

  it('is ok with the right token and one line naming the refusal with a wrong one', async () => {
    const sqlitePath = path.join(os.tmpdir(), `gw-check-wm-${process.pid}.sqlite`);
    const ok = await runCli(['check', 'work-management'], { SQLITE_PATH: sqlitePath, WORK_MANAGEMENT_BASE_URL: m.base, WORK_MANAGEMENT_TOKEN: m.mock.token });
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/^work-management: ok\b/m);
    const wrong = await runCli(['check', 'work-management'], {
      SQLITE_PATH: sqlitePath,
      WORK_MANAGEMENT_BASE_URL: m.base,
      WORK_MANAGEMENT_TOKEN: `${m.mock.token}-not`,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^work-management: source: .*401/)]);
    expect(wrong.stdout).not.toContain(m.mock.token);
    expect(fs.existsSync(sqlitePath)).toBe(false);
  });
});
