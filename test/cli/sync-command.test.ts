import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adapterFactories } from '../../src/adapters/adapter-registry';
import { parseInterval } from '../../src/cli/parse-interval';
import { createDb, type Db } from '../../src/staging/database/create-db';
import { runCli, startCli, summaryOf } from '../e2e/cli-process';
import { generateMixedTree, type MixedTree } from '@content-gateway/kit/src/fixtures/mixed-tree';

/**
 * `sync` through the front door: the real CLI as a child process (stdout a pipe, so not a
 * terminal) on a fresh SQLite database and a generated folder tree.
 */
const PRINCIPALS = 45; // users and groups of the generated directory

jest.setTimeout(60_000);

interface RunRow {
  id: number;
  mode: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

describe('content-gateway sync', () => {
  let dir: string;
  let env: Record<string, string>;
  let dbs: Db[];
  const treeOf = (files: number): MixedTree => {
    const root = path.join(dir, `tree-${files}`);
    fs.mkdirSync(root);
    return generateMixedTree(root, { files, skipped: 10 });
  };
  const staging = (): Db => {
    const db = createDb({ sqlitePath: env.SQLITE_PATH ?? '' });
    dbs.push(db);
    return db;
  };
  const seenMarks = async (): Promise<number> => Number((await staging()('sync_seen').count({ n: '*' }).first())?.n);
  const runs = async (): Promise<RunRow[]> =>
    (await staging()('sync_runs').orderBy('id').select('id', 'mode', 'status', 'started_at', 'finished_at', 'error')) as RunRow[];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-cli-'));
    env = { SQLITE_PATH: path.join(dir, 'data', 'gw.sqlite'), BLOB_DIR: path.join(dir, 'data', 'blobs') };
    dbs = [];
  });
  afterEach(async () => {
    for (const db of dbs) await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Read from the registry: a forker's scaffolded adapters are registered adapters too.
  const registered = adapterFactories.map((f) => f.name).join(', ');

  it('names the registered adapters when given an unknown one (or none), exits 1, and touches no database', async () => {
    const [unknown, none] = await Promise.all([runCli(['sync', 'sharepoint'], env), runCli(['sync'], env)]);
    expect(unknown).toMatchObject({ code: 1, stdout: '', stderr: `error: Unknown adapter 'sharepoint'. Registered adapters: ${registered}.\n` });
    expect(none).toMatchObject({ code: 1, stdout: '', stderr: `error: Name an adapter or use --all. Registered adapters: ${registered}.\n` });
    expect(fs.existsSync(env.SQLITE_PATH ?? '')).toBe(false);
  });

  it('refuses a malformed --every with the accepted forms, before touching the database', async () => {
    const bad = ['2x', '0s', '15', '-5m', '1d', '1000h', ''];
    const results = await Promise.all(bad.map((every) => runCli(['sync', 'filesystem', '--every', every], { ...env, FILESYSTEM_ROOT: dir })));
    for (const [i, r] of results.entries()) {
      const every = bad[i];
      expect({ every, code: r.code, stdout: r.stdout }).toEqual({ every, code: 1, stdout: '' });
      if (every === '1000h') expect(r.stderr).toBe("error: --every takes at most 596h; got '1000h'\n");
      else expect(r.stderr).toBe(`error: --every takes a duration such as 90s, 15m or 1h; got '${every}'\n`);
    }
    expect(fs.existsSync(env.SQLITE_PATH ?? '')).toBe(false);
    expect([parseInterval('90s'), parseInterval('15m'), parseInterval(' 1h '), parseInterval('596h')]).toEqual([90_000, 900_000, 3_600_000, 596 * 3_600_000]);
  });

  it('runs full instead of incremental once the latest full run started --full-every ago (24h unless told; off: never on a schedule)', async () => {
    const tree = treeOf(20);
    const fsEnv = { ...env, FILESYSTEM_ROOT: tree.root };
    const bad = await runCli(['sync', 'filesystem', '--full-every', '2x'], fsEnv);
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 1, stderr: "error: --full-every takes a duration such as 90s, 15m or 1h; got '2x'\n" });
    expect(summaryOf((await runCli(['sync', 'filesystem'], fsEnv)).stdout).mode).toBe('full');
    expect(summaryOf((await runCli(['sync', 'filesystem'], fsEnv)).stdout).mode).toBe('incremental');
    const dayAgo = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await staging()('sync_runs').where({ mode: 'full' }).update({ started_at: dayAgo });
    expect(summaryOf((await runCli(['sync', 'filesystem', '--full-every', 'off'], fsEnv)).stdout).mode).toBe('incremental');
    const due = summaryOf((await runCli(['sync', 'filesystem'], fsEnv)).stdout);
    expect(due.mode).toBe('full');
    expect(due.line).toMatch(/full because a full run is due \(the last one started 25\.0 h ago; one every 24 h\)/);
  });

  it('says which setting an adapter misses, exits 1', async () => {
    const r = await runCli(['sync', 'filesystem'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('filesystem: not configured — Invalid filesystem adapter settings: FILESYSTEM_ROOT: is required\n');
  });

  it('--all with no adapter configured is a usage error saying where the settings are listed (issue 29); a half-configured adapter names each problem once', async () => {
    const none = await runCli(['sync', '--all'], env);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toBe("error: --all found no configured adapter: set an adapter's settings (`sync --help` lists them, docs/adapters.md).\n");
    expect(fs.existsSync(env.SQLITE_PATH ?? '')).toBe(false);

    const half = await runCli(['sync', '--all'], { ...env, WORK_MANAGEMENT_TOKEN: 'not-a-secret' });
    expect(half.code).toBe(1);
    const line = half.stdout.split('\n').find((l) => l.startsWith('work-management:')) ?? '';
    expect(line.match(/WORK_MANAGEMENT_BASE_URL/g)).toHaveLength(1);
    const others = adapterFactories.map((f) => f.name).filter((n) => n !== 'work-management');
    expect(half.stdout).toContain(`sync --all: skipped ${others.join(', ')}: not configured`);
  });

  it('off a terminal, logs a structured line per committed batch and ends with a one-line summary', async () => {
    const tree = treeOf(1200);
    const r = await runCli(['sync', 'filesystem'], { ...env, FILESYSTEM_ROOT: tree.root, LOG_LEVEL: 'info' });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).not.toMatch(/\u001b\[/); // no progress bar, no colours
    const lines = r.stdout.trimEnd().split('\n');
    const logs = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([
      expect.stringMatching(
        /^filesystem: full sync succeeded: files added 1200, changed 0, unchanged 0, deleted 0, failed 0; users and groups added 45, changed 0, unchanged 0, deleted 0 in \d+\.\d s — full because no checkpoint yet$/,
      ),
    ]);
    const progress = logs.filter((l) => l.msg === 'sync progress');
    expect(progress.length).toBeGreaterThanOrEqual(3); // batches of 500
    for (const p of progress) {
      expect(p).toMatchObject({
        level: 30,
        time: expect.any(String),
        source: 'filesystem',
        mode: 'full',
        processed: expect.any(Number),
        counts: { added: expect.any(Number), changed: 0, unchanged: 0, deleted: 0, failed: 0 },
      });
    }
    const processed = progress.map((p) => Number(p.processed));
    // Strictly increasing: one line per committed batch, never twice for the same events.
    expect(processed).toEqual([...new Set(processed)].sort((a, b) => a - b));
    expect(processed.at(-1)).toBe(1200 + PRINCIPALS);
    expect(logs.find((l) => l.msg === 'sync finished')).toMatchObject({
      source: 'filesystem',
      status: 'succeeded',
      counts: { added: 1200 },
      identities: { added: PRINCIPALS },
    });
  });

  it('blocks a mass deletion (exit 1, the --allow-mass-delete hint, nothing deleted); --allow-mass-delete then deletes', async () => {
    const tree = treeOf(60);
    const fsEnv = { ...env, FILESYSTEM_ROOT: tree.root };
    expect(summaryOf((await runCli(['sync', 'filesystem'], fsEnv)).stdout)).toMatchObject({ counts: { added: 60 }, identities: { added: PRINCIPALS } });
    const gone = tree.files.filter((f) => !f.overridden).slice(0, 40);
    for (const f of gone) fs.rmSync(path.join(tree.root, f.path));

    const blocked = await runCli(['sync', 'filesystem'], fsEnv);
    expect(blocked.code).toBe(1);
    const summary = summaryOf(blocked.stdout);
    expect(summary).toMatchObject({ mode: 'full', status: 'blocked', counts: { deleted: 0 } });
    expect(summary.line).toMatch(
      /The run would delete 40 of 60 active files \(over 50 %\); nothing was deleted\. If the source really lost them, run again with --allow-mass-delete\./,
    );
    const db = staging();
    expect(Number((await db('files').where({ status: 'active' }).count({ n: '*' }).first())?.n)).toBe(60);
    expect(Number((await db('sync_seen').count({ n: '*' }).first())?.n)).toBe(0);

    const allowed = await runCli(['sync', 'filesystem', '--allow-mass-delete'], fsEnv);
    expect(allowed.code).toBe(0);
    expect(summaryOf(allowed.stdout)).toMatchObject({ mode: 'full', status: 'succeeded', counts: { added: 0, changed: 0, deleted: 40, failed: 0 } });
    const statuses = (await db('files').orderBy('id').select('id', 'status')) as Array<{ id: string; status: string }>;
    expect(statuses.filter((s) => s.status === 'deleted').map((s) => s.id)).toEqual(gone.map((f) => `filesystem:${f.path}`).sort());
    expect(statuses.filter((s) => s.status === 'active')).toHaveLength(20);
  });

  it('--every 2s runs rounds one after another, 2 s apart, and stops at once on SIGTERM between rounds (exit 0)', async () => {
    const tree = treeOf(300);
    const p = startCli(['sync', 'filesystem', '--every', '2s'], { ...env, FILESYSTEM_ROOT: tree.root, LOG_LEVEL: 'info' });
    let finished = 0;
    await p.waitForLog((l) => l.msg === 'sync finished' && ++finished === 2, 'two finished rounds');
    await p.waitForLog((l) => l.msg === 'next sync round scheduled' && Number(l.nextInMs) > 500, 'the wait after round two');
    const stopAt = Date.now();
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - stopAt).toBeLessThan(1500); // it did not sit out the interval

    const rows = await runs();
    expect(rows.map((r) => [r.mode, r.status])).toEqual([
      ['full', 'succeeded'],
      ['incremental', 'succeeded'],
    ]);
    const [first, second] = rows as [RunRow, RunRow];
    expect(second.started_at >= (first.finished_at ?? '')).toBe(true);
    expect(Date.parse(second.started_at) - Date.parse(first.started_at)).toBeGreaterThanOrEqual(1900);
    expect(p.stdout().match(/^filesystem: (full|incremental) sync succeeded/gm)).toHaveLength(2);
  });

  it('--every: a SIGTERM during a round cancels that run (recorded, never left running), releases the lock and exits 0', async () => {
    const tree = treeOf(4000);
    const p = startCli(['sync', 'filesystem', '--full', '--every', '2s'], { ...env, FILESYSTEM_ROOT: tree.root, LOG_LEVEL: 'info' });
    let roundOneDone = false;
    await p.waitForLog((l) => {
      if (l.msg === 'sync finished') roundOneDone = true;
      return roundOneDone && l.msg === 'sync progress';
    }, 'progress of round two');
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });

    const rows = await runs();
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [RunRow, RunRow];
    expect(first.status).toBe('succeeded');
    expect(second.started_at >= (first.finished_at ?? '')).toBe(true); // no overlap, even with a round longer than the interval
    // Round two re-reads 4,000 files; the signal came after its first batch, so it was cut short.
    expect(second).toMatchObject({ status: 'cancelled', error: 'cancelled before the end: nothing was swept', finished_at: expect.any(String) });
    expect(p.stdout()).toMatch(
      /^filesystem: full sync cancelled: files added 0, changed 0, unchanged \d+, deleted 0, failed 0; users and groups added 0, changed 0, unchanged \d+, deleted 0 in [\d.]+ s — cancelled before the end: nothing was swept$/m,
    );
    expect(await staging()('sync_locks').select('*')).toEqual([]);
    // The cancelled run's seen marks are left behind; it will never resume, so the next run drops them.
    expect(await seenMarks()).toBeGreaterThan(0);

    // The next run starts at once (no lock to wait out) and, the cancelled run not being resumable, runs on its own.
    const next = await runCli(['sync', 'filesystem'], { ...env, FILESYSTEM_ROOT: tree.root });
    expect(next.code).toBe(0);
    expect(summaryOf(next.stdout)).toMatchObject({ status: 'succeeded', resumed: false, counts: { added: 0, changed: 0, deleted: 0, failed: 0 } });
    expect(await seenMarks()).toBe(0);
  });

  it('an incremental run with changes leaves no bookkeeping behind (no seen marks, no lock)', async () => {
    const tree = treeOf(200);
    const fsEnv = { ...env, FILESYSTEM_ROOT: tree.root };
    expect((await runCli(['sync', 'filesystem'], fsEnv)).code).toBe(0);
    const edited = tree.files.filter((f) => f.kind === 'html').slice(0, 5);
    const later = new Date('2025-06-01T00:00:00Z');
    for (const f of edited) {
      const file = path.join(tree.root, f.path);
      fs.appendFileSync(file, '<p>edited</p>\n');
      fs.utimesSync(file, later, later);
    }
    const r = await runCli(['sync', 'filesystem'], fsEnv);
    expect(summaryOf(r.stdout)).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { added: 0, changed: 5, deleted: 0, failed: 0 } });
    expect(await seenMarks()).toBe(0);
    expect(await staging()('sync_locks').select('*')).toEqual([]);
  });

  it('with BLOB_STORE=database keeps binary content in the database (no blob folder), which a switch back to the directory then fills again', async () => {
    const tree = treeOf(40);
    const binaries = tree.files.filter((f) => f.kind === 'pdf' || f.kind === 'txt').length;
    const dbEnv = { ...env, FILESYSTEM_ROOT: tree.root, BLOB_STORE: 'database' };
    expect(summaryOf((await runCli(['sync', 'filesystem'], dbEnv)).stdout)).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    const keys = new Set(((await staging()('files').whereNotNull('blob_key').select('blob_key')) as Array<{ blob_key: string }>).map((r) => r.blob_key));
    expect(keys.size).toBeGreaterThan(0);
    expect(Number((await staging()('files').whereNotNull('blob_key').count({ n: '*' }).first())?.n)).toBe(binaries);
    const stored = (await staging()('blobs').select('key')) as Array<{ key: string }>;
    expect(new Set(stored.map((r) => r.key))).toEqual(keys);
    expect(fs.existsSync(env.BLOB_DIR ?? '')).toBe(false);
    // Back to the directory: a full run stores every blob the folder lacks, nothing served changes.
    const r = await runCli(['sync', 'filesystem', '--full'], { ...dbEnv, BLOB_STORE: 'directory' });
    expect(summaryOf(r.stdout)).toMatchObject({ status: 'succeeded', counts: { added: 0, changed: 0, failed: 0 } });
    const inFolder = fs
      .readdirSync(env.BLOB_DIR ?? '', { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
    expect(new Set(inFolder)).toEqual(keys);
  });

  it('gc-blobs deletes the blobs no file points at any more (after --dry-run only counted them), sparing recent ones, and refuses while a sync runs', async () => {
    const tree = treeOf(40);
    const fsEnv = { ...env, FILESYSTEM_ROOT: tree.root };
    expect((await runCli(['sync', 'filesystem'], fsEnv)).code).toBe(0);
    const referenced = new Set(((await staging()('files').whereNotNull('blob_key').select('blob_key')) as Array<{ blob_key: string }>).map((r) => r.blob_key));
    // A blob nothing points at, stored two hours ago (as a killed sync would leave it).
    const orphan = 'f'.repeat(64);
    fs.mkdirSync(path.join(env.BLOB_DIR ?? '', 'ff'), { recursive: true });
    fs.writeFileSync(path.join(env.BLOB_DIR ?? '', 'ff', orphan), 'left behind');
    const old = new Date(Date.now() - 2 * 3_600_000);
    fs.utimesSync(path.join(env.BLOB_DIR ?? '', 'ff', orphan), old, old);
    const blobFiles = () =>
      fs
        .readdirSync(env.BLOB_DIR ?? '', { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name);
    const dry = await runCli(['gc-blobs', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${referenced.size + 1} blobs in the directory store: 1 unreferenced would be deleted`);
    expect(blobFiles()).toContain(orphan);
    const real = await runCli(['gc-blobs'], env);
    expect(real.stdout).toContain('1 unreferenced deleted, 0 unreferenced but stored within 1h kept');
    expect(new Set(blobFiles())).toEqual(referenced);
    const bad = await runCli(['gc-blobs', '--grace', 'soon'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--grace takes a duration such as 90s, 15m or 1h; got 'soon'");
    await staging()('sync_locks').insert({ source: 'filesystem', owner: 'another process', expires_at: new Date(Date.now() + 60_000).toISOString() });
    const locked = await runCli(['gc-blobs'], env);
    expect(locked.code).toBe(1);
    expect(locked.stdout).toContain("A sync of 'filesystem' is running");
  });
});
