import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from '../helpers/test-databases';
import { runCli, startCli, summaryOf, type CliProcess } from './cli-process';
import { crawlFiles } from './crawl-files';
import { generateMixedTree, servedAccess, type MixedTree } from '@content-gateway/kit/src/fixtures/mixed-tree';
import { changedKeys, snapshotDiff, stagingSnapshot } from './staging-snapshot';

/**
 * Issue 3, end to end: a generated folder of 10,000 mixed files synced by the real CLI
 * (`sync filesystem` as a child process), served by the real gateway (`serve` as a child
 * process) on the same database, crawled the way the platform crawls it. Then: a sync with no
 * change changes nothing; deletions become exactly their tombstones; a sync killed with SIGKILL
 * at several points and re-run converges to what an uninterrupted run stages; a second sync
 * started while one runs is refused by the lock, which the next run takes over once its holder
 * is killed. One test file per staging database (filesystem-sync.test.ts on SQLite,
 * filesystem-sync-postgres.test.ts on Postgres when TEST_DATABASE_URL is set), so the two halves
 * of the scenario, minutes each, run side by side on two test workers.
 */
const SOURCE = 'filesystem';
const API_KEY = 'e2e-key-0123456789abcdef0123456789';
const FILE_COUNT = 10_000;
/** 30 users and 15 groups from the generated `_directory.yaml`. */
const PRINCIPALS = 45;
const SUPPORTED = ['.html', '.htm', '.md', '.pdf', '.docx', '.pptx', '.txt'];

/** The scenario on one staging database (`suite` is `describe`, or `describe.skip` to show it skipped). */
export function describeFilesystemSync(kind: DatabaseKind, suite: jest.Describe = describe): void {
  jest.setTimeout(120_000);
  suite(`syncing a 10,000-file folder through the CLI on ${kind}`, () => scenario(kind));
}

function scenario(kind: DatabaseKind): void {
  let work: string;
  let tree: MixedTree;
  /** The reference: one uninterrupted run into a fresh database. */
  let main: TestDatabase;
  const databases: TestDatabase[] = [];

  const fresh = async (): Promise<TestDatabase> => {
    const db = await createTestDatabase(kind);
    databases.push(db);
    return db;
  };
  const envFor = (db: TestDatabase, logLevel = 'warn'): Record<string, string> => {
    const blobDir = path.join(work, `blobs-${databases.indexOf(db)}`);
    return { FILESYSTEM_ROOT: tree.root, BLOB_DIR: blobDir, LOG_LEVEL: logLevel, ...db.env };
  };
  const sync = async (db: TestDatabase, ...flags: string[]) => {
    const result = await runCli(['sync', SOURCE, ...flags], envFor(db));
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return summaryOf(result.stdout);
  };
  const snapshot = (db: TestDatabase, timestamps = false) => stagingSnapshot(db.db, SOURCE, { timestamps });
  const runStatuses = async (db: TestDatabase) => ((await db.db('sync_runs').orderBy('id').select('status')) as Array<{ status: string }>).map((r) => r.status);
  /**
   * Kills a sync once at least `items` files are committed. The database is watched rather than
   * the progress log: the child's log lines can reach us after it has moved on by thousands of files.
   */
  const killAfterItems = async (p: CliProcess, db: TestDatabase, items: number) => {
    await whenCommitted(db, items);
    p.child.kill('SIGKILL');
    return p.exited;
  };

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-e2e-'));
    fs.mkdirSync(path.join(work, 'tree'));
    tree = generateMixedTree(path.join(work, 'tree'), { files: FILE_COUNT });
    main = await fresh();
    const summary = await sync(main);
    expect(summary).toMatchObject({
      source: SOURCE,
      mode: 'full',
      status: 'succeeded',
      counts: { added: FILE_COUNT, changed: 0, deleted: 0, failed: 0 },
      identities: { added: PRINCIPALS },
    });
  }, 120_000);

  afterAll(async () => {
    for (const db of databases) await db.destroy();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('serves every supported file once, with the access list its sidecars give it, and nothing it must skip', async () => {
    const server = startCli(['serve'], { ...envFor(main), PORT: '0', HOST: '127.0.0.1', GATEWAY_API_KEY: API_KEY, DEMO_CONTENT: 'off' });
    try {
      const line = await server.waitForLine((l) => /listening on http:\/\/localhost:\d+\//.test(l), 'the listening line');
      const base = `http://127.0.0.1:${/localhost:(\d+)/.exec(line)?.[1] ?? ''}`;
      const crawled = await crawlFiles(base, API_KEY);

      // Every generated file, and nothing else, with its type, title and exact access list.
      expect(crawled.size).toBe(FILE_COUNT);
      const wrong: string[] = [];
      for (const f of tree.files) {
        const served = crawled.get(`${SOURCE}:${f.path}`);
        const expected = { status: 'active', mimeType: f.mimeType, name: f.title, access: servedAccess(f.rule, SOURCE) };
        const got = served && { status: served.status, mimeType: served.mimeType, name: served.name, access: served.access };
        if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${f.path}: expected ${JSON.stringify(expected)}, served ${JSON.stringify(got)}`);
      }
      expect(wrong.slice(0, 10)).toEqual([]);
      for (const skipped of tree.skipped) expect(crawled.has(`${SOURCE}:${skipped}`)).toBe(false);
      // The corpus exercises every kind of rule.
      const accessLists = [...crawled.values()].map((f) => f.access.join(','));
      expect(accessLists).toContain('GROUP *');
      expect(accessLists).toContain('');
      expect(accessLists.some((a) => a.includes('USER ') && a.includes('GROUP '))).toBe(true);

      // Independently of the generator: a sample of folders checked file by file against the
      // sidecars on disk (nearest sidecar at or above wins; overrides only in their own folder).
      const withOverrides = [...tree.folders.keys()].filter((f) => /^files:/m.test(readIfExists(path.join(tree.root, f, '_access.yaml')))).slice(0, 3);
      expect(withOverrides.length).toBeGreaterThan(0);
      const sample = [
        '',
        'public/news/2025',
        'drafts/old',
        'company/handbook',
        'dept-0/meetings/archive',
        'dept-1/wiki/archive/2024',
        'dept-3/private',
        ...withOverrides,
      ];
      let checked = 0;
      for (const folder of sample) {
        for (const entry of fs.readdirSync(path.join(tree.root, folder), { withFileTypes: true })) {
          if (!entry.isFile() || entry.name === '_access.yaml' || entry.name === '_directory.yaml') continue;
          const id = `${SOURCE}:${folder ? `${folder}/` : ''}${entry.name}`;
          const servable = SUPPORTED.includes(path.extname(entry.name).toLowerCase()) && !/^[_.]/.test(entry.name);
          expect({ id, served: crawled.has(id) }).toEqual({ id, served: servable });
          if (!servable) continue;
          expect({ id, access: crawled.get(id)?.access }).toEqual({ id, access: accessFromDisk(tree.root, folder, entry.name) });
          checked += 1;
        }
      }
      expect(checked).toBeGreaterThan(1000);

      // Binaries download byte for byte (a sample).
      const binaries = tree.files.filter((f) => f.kind === 'pdf' || f.kind === 'txt').filter((_, i) => i % 50 === 0);
      for (const f of binaries) {
        const served = crawled.get(`${SOURCE}:${f.path}`);
        const res = await fetch(`${base}/v1/files${served?.downloadPath ?? ''}`, { headers: { Authorization: API_KEY } });
        expect(res.status).toBe(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(res.headers.get('checksum-sha256')).toBe(
          crypto
            .createHash('sha256')
            .update(fs.readFileSync(path.join(tree.root, f.path)))
            .digest('hex'),
        );
        expect(bytes.equals(fs.readFileSync(path.join(tree.root, f.path)))).toBe(true);
      }
    } finally {
      server.child.kill('SIGTERM');
      const exit = await server.exited;
      if (exit.code !== 0) console.log('SERVER STDERR', server.stderr().slice(-3000));
      expect(exit.code).toBe(0);
    }
  });

  it('a second sync (incremental, then a full re-scan) changes nothing and moves no timestamp', async () => {
    const before = await snapshot(main, true);
    expect(await sync(main)).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { added: 0, changed: 0, deleted: 0, failed: 0 } });
    expect(await sync(main, '--full')).toMatchObject({
      mode: 'full',
      status: 'succeeded',
      counts: { added: 0, changed: 0, unchanged: FILE_COUNT, deleted: 0, failed: 0 },
      identities: { unchanged: PRINCIPALS },
    });
    expect(snapshotDiff(before, await snapshot(main, true))).toEqual([]);
  });

  it('SIGKILLed at several points and re-run, a sync converges to what an uninterrupted run stages', async () => {
    const db = await fresh();
    const env = envFor(db, 'info');
    const windowStart = new Date().toISOString();

    // Killed early, after about 1,500 items were committed.
    const first = await killAfterItems(startCli(['sync', SOURCE], env), db, 1500);
    expect(first.signal).toBe('SIGKILL');
    expect(await runStatuses(db)).toEqual(['running']);
    const committed = Number((await db.db('files').count({ n: '*' }).first())?.n);
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(FILE_COUNT);

    // The re-run resumes the same run; killed again further on.
    const second = await killAfterItems(startCli(['sync', SOURCE], env), db, 6000);
    expect(second.signal).toBe('SIGKILL');
    // And once more, near the end of the walk.
    const third = await killAfterItems(startCli(['sync', SOURCE], env), db, 8500);
    expect(third.signal).toBe('SIGKILL');
    expect(await runStatuses(db)).toEqual(['running']);

    const done = await runCli(['sync', SOURCE], { ...env, LOG_LEVEL: 'warn' });
    expect(done.code).toBe(0);
    expect(summaryOf(done.stdout)).toMatchObject({ mode: 'full', resumed: true, status: 'succeeded', counts: { deleted: 0, failed: 0 } });
    expect(await runStatuses(db)).toEqual(['succeeded']);
    expect(Number((await db.db('sync_seen').count({ n: '*' }).first())?.n)).toBe(0);
    expect(await db.db('sync_locks').select('*')).toEqual([]);

    expect(snapshotDiff(await snapshot(main), await snapshot(db))).toEqual([]);
    // The timestamps that do differ were set by one of the interrupted runs: first staging, so a
    // file's content and access list date from the same moment, within the window of the runs.
    const windowEnd = new Date().toISOString();
    const stamps = (await db.db('files').select('id', 'modified_at', 'permissions_modified_at')) as Array<{
      id: string;
      modified_at: string;
      permissions_modified_at: string;
    }>;
    const outside = stamps.filter((f) => f.modified_at < windowStart || f.modified_at > windowEnd || f.permissions_modified_at !== f.modified_at);
    expect(outside.slice(0, 5)).toEqual([]);
    for (const table of ['users', 'groups']) {
      const times = ((await db.db(table).pluck('modified_at')) as string[]).filter((t) => t < windowStart || t > windowEnd);
      expect({ table, times }).toEqual({ table, times: [] });
    }

    // Timestamps set by the interrupted path stay put on a further run with no change.
    const settled = await snapshot(db, true);
    expect(await sync(db)).toMatchObject({ mode: 'incremental', counts: { added: 0, changed: 0, deleted: 0 } });
    expect(snapshotDiff(settled, await snapshot(db, true))).toEqual([]);
  });

  it('refuses a second sync while one runs (exit 1, naming the holder) and takes the lock over from a killed one', async () => {
    const db = await fresh();
    const holder = startCli(['sync', SOURCE], envFor(db, 'info'));
    await whenCommitted(db, 1);
    await stopBetweenWrites(holder, db); // holds the lock, alive, for as long as the test needs
    try {
      const refused = await runCli(['sync', SOURCE], envFor(db));
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(
        new RegExp(`filesystem: sync could not run — A sync of 'filesystem' is already running \\(${escapeRegExp(os.hostname())}:${holder.pid}:[0-9a-f]+\\)`),
      );
      const all = await runCli(['sync', '--all'], envFor(db));
      expect(all.code).toBe(1);
      expect(all.stdout).toMatch(/already running/);
    } finally {
      holder.child.kill('SIGKILL');
    }
    expect((await holder.exited).signal).toBe('SIGKILL');
    expect((await db.db('sync_locks').select('owner')) as unknown[]).toEqual([{ owner: expect.stringContaining(`:${holder.pid}:`) }]);

    // Same host, dead pid: the next run takes the lock over at once and finishes the interrupted run.
    const next = await sync(db);
    expect(next).toMatchObject({ mode: 'full', resumed: true, status: 'succeeded', counts: { deleted: 0, failed: 0 } });
    expect(await db.db('sync_locks').select('*')).toEqual([]);
    expect(snapshotDiff(await snapshot(main), await snapshot(db))).toEqual([]);
  });

  it('deleting 3 files makes exactly 3 tombstones and changes nothing else', async () => {
    // One of each kind, none named by a sidecar override (deleting those breaks the sidecar).
    const victims = (['html', 'md', 'pdf'] as const).map((kind) => tree.files.find((f) => f.kind === kind && !f.overridden)?.path ?? '');
    const before = await snapshot(main, true);
    for (const rel of victims) fs.rmSync(path.join(tree.root, rel));

    expect(await sync(main)).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { added: 0, changed: 0, deleted: 3, failed: 0 } });
    const after = await snapshot(main, true);
    const ids = victims.map((rel) => `${SOURCE}:${rel}`).sort();
    // The checkpoint holds no file versions (they are staged with the rows): deleting files leaves it as it was.
    expect(changedKeys(before, after)).toEqual({ files: ids, permissions: [], users: [], groups: [], members: [], checkpoint: [] });
    const tombstones = (await main
      .db('files')
      .where({ source: SOURCE, status: 'deleted' })
      .orderBy('id')
      .select('id', 'blob_key', 'body_html', 'deleted_at')) as Array<Record<string, unknown>>;
    expect(tombstones.map((t) => t.id)).toEqual(ids);
    for (const t of tombstones) expect(t).toMatchObject({ blob_key: null, body_html: null, deleted_at: expect.any(String) });
    expect(Number((await main.db('files').where({ source: SOURCE, status: 'active' }).count({ n: '*' }).first())?.n)).toBe(FILE_COUNT - 3);

    // A full re-scan agrees: nothing more to delete, nothing changed.
    expect(await sync(main, '--full')).toMatchObject({ mode: 'full', counts: { added: 0, changed: 0, deleted: 0, failed: 0 } });
    expect(changedKeys(after, await snapshot(main, true))).toMatchObject({ files: [], permissions: [], users: [], groups: [], members: [] });
  });
}

/**
 * SIGSTOPs a running sync at a moment it is not inside a write transaction: on SQLite a process
 * frozen mid-transaction would hold the whole database's write lock, which no real (running)
 * holder does for more than a batch. Probes with a non-waiting BEGIN IMMEDIATE; on Postgres a
 * frozen transaction locks only its own rows, so any moment will do.
 */
/**
 * Resolves once `db` holds at least `count` file rows, counted every 20 ms: a sync commits a few
 * dozen files in that time, and counting 10,000 rows more often takes CPU from the sync it waits for.
 */
async function whenCommitted(db: TestDatabase, count: number): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(20)) {
    if (Number((await db.db('files').count({ n: '*' }).first())?.n) >= count) return;
  }
  throw new Error(`never saw ${count} files committed`);
}

async function stopBetweenWrites(p: CliProcess, db: TestDatabase): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    p.child.kill('SIGSTOP');
    await sleep(30);
    if (db.kind !== 'sqlite' || canWriteNow(db.env.SQLITE_PATH ?? '')) return;
    p.child.kill('SIGCONT');
    await sleep(5 + attempt);
  }
  throw new Error('never caught the sync between two write transactions');
}

function canWriteNow(sqlitePath: string): boolean {
  const conn = new Database(sqlitePath, { timeout: 0 });
  try {
    conn.exec('BEGIN IMMEDIATE');
    conn.exec('ROLLBACK');
    return true;
  } catch {
    return false;
  } finally {
    conn.close();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readIfExists(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A file's served access list derived from the sidecars on disk, without the adapter's code. */
function accessFromDisk(root: string, folder: string, fileName: string): string[] {
  let dir = folder;
  let own = true;
  for (;;) {
    const text = readIfExists(path.join(root, dir, '_access.yaml'));
    if (text) {
      const doc = (parseYaml(text) ?? {}) as {
        public?: boolean;
        users?: string[];
        groups?: string[];
        files?: Record<string, { public?: boolean; users?: string[]; groups?: string[] }>;
      };
      const rule = (own ? doc.files?.[fileName] : undefined) ?? doc;
      return servedAccess({ ...(rule.public ? { public: true as const } : {}), users: rule.users ?? [], groups: rule.groups ?? [] }, SOURCE);
    }
    if (dir === '') return [];
    dir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
    own = false;
  }
}
