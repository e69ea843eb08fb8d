import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import { freshGet, type FreshResponse } from '../helpers/fresh-get';
import { dropKeys, testRedisUrl, uniqueKeyPrefix } from '../helpers/test-redis';
import { runCli, startCli, summaryOf, type CliProcess } from './cli-process';

/**
 * Two gateway replicas (real processes) on one Postgres schema with the database blob store and
 * rate limits in Redis, as the scaled deployment runs them: a crawl alternates between them page
 * by page (each follows the other's nextLinks: the `$skiptoken` key is shared through the
 * database), downloads go through the replica that did not list the file, a sync in a third
 * process rewrites the source while they serve (every file present all along is listed exactly
 * once), one rate limit holds across both, and a replica killed mid-crawl leaves the crawl to
 * finish on the other.
 */

jest.setTimeout(300_000);

const pgUrl = process.env.TEST_DATABASE_URL;
const run = pgUrl && testRedisUrl ? describe : describe.skip;
if (!(pgUrl && testRedisUrl)) {
  console.warn('[replicas test] SKIPPED: needs TEST_DATABASE_URL and TEST_REDIS_URL (both set in CI by .ci/run)');
}

const KEY_CRAWL = 'replicas-key-crawl-0123456789abcdef';
const KEY_LIMIT = 'replicas-key-limit-0123456789abcdef';
const LIMIT = 120;
const PAGE = 25;

interface ListedFile {
  id: string;
  content: { download_path?: string };
}
interface FilesPage {
  value: ListedFile[];
  '@odata.nextLink'?: string;
}

/** The same URL on another replica (links carry the host they were asked on). */
const on = (base: string, link: string): string => link.replace(/^https?:\/\/[^/]+/, base);

async function page(url: string): Promise<FilesPage> {
  const res = await freshGet(url, { Authorization: KEY_CRAWL });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body) as FilesPage;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once a second sync run is recorded as running (or `gaveUp()`, the sync having ended). */
async function runStarted(schema: string, gaveUp: () => boolean): Promise<void> {
  const db = knex({ client: 'pg', connection: pgUrl, searchPath: [schema], pool: { min: 0, max: 1 } });
  try {
    while (!gaveUp() && !(await db('sync_runs').where({ status: 'running' }).first('id'))) await sleep(25);
  } finally {
    await db.destroy();
  }
}

/** A source tree: Markdown articles and plain-text binaries (downloads). */
function writeTree(root: string, names: string[]): void {
  for (const name of names)
    fs.writeFileSync(path.join(root, name), name.endsWith('.md') ? `# ${name}\n\nArticle ${name}.\n` : `plain text of ${name}\n`.repeat(50));
}

run('two replicas on one Postgres with Redis (scaled out)', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const prefix = uniqueKeyPrefix();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replicas-'));
  const env: Record<string, string> = {
    DATABASE_URL: pgUrl as string,
    DATABASE_SCHEMA: schema,
    BLOB_STORE: 'database',
    GATEWAY_API_KEY: `${KEY_CRAWL},${KEY_LIMIT}`,
    FILESYSTEM_ROOT: root,
    SYNC_MAX_DELETE_SHARE: '1',
  };
  const replicaEnv = {
    ...env,
    PORT: '0',
    HOST: '127.0.0.1',
    WEB_CONCURRENCY: '1',
    LOG_LEVEL: 'info',
    REDIS_URL: testRedisUrl as string,
    REDIS_KEY_PREFIX: prefix,
    RATE_LIMIT_REQUESTS: String(LIMIT),
  };
  const replicas: CliProcess[] = [];
  const bases: string[] = [];
  const initial = [
    ...Array.from({ length: 150 }, (_, i) => `article-${String(i).padStart(3, '0')}.md`),
    ...Array.from({ length: 30 }, (_, i) => `sheet-${String(i).padStart(3, '0')}.txt`),
  ];

  beforeAll(async () => {
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
    fs.writeFileSync(path.join(root, '_directory.yaml'), 'users:\n  - { id: ana, email: ana@example.com, full_name: Ana, active: true }\ngroups: []\n');
    writeTree(root, initial);
    const first = await runCli(['sync', 'filesystem'], env);
    // (The directory's one user is counted apart, with users and groups.)
    expect(summaryOf(first.stdout)).toMatchObject({ status: 'succeeded', counts: { added: initial.length, failed: 0 }, identities: { added: 1 } });
    // Both at once, as an orchestrator starts them.
    replicas.push(startCli(['serve'], replicaEnv), startCli(['serve'], replicaEnv));
    for (const replica of replicas) {
      const line = await replica.waitForLine((l) => /listening on http:\/\/localhost:\d+\//.test(l), 'listening');
      bases.push(`http://127.0.0.1:${/localhost:(\d+)/.exec(line)?.[1]}`);
    }
  });
  afterAll(async () => {
    for (const replica of replicas) replica.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('drop schema if exists ?? cascade', [schema]);
    await admin.destroy();
    await dropKeys(prefix);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('crawls page by page across both replicas while a third process syncs, and downloads through the other replica', async () => {
    const [a, b] = bases as [string, string];
    const deleted = initial.filter((_, i) => i % 10 === 3);
    const changed = initial.filter((_, i) => i % 10 === 5);
    const added = Array.from({ length: 60 }, (_, i) => `late-${String(i).padStart(3, '0')}.md`);
    const listed: Array<ListedFile & { via: string }> = [];
    let next: string | undefined = `${a}/v1/files?$top=${PAGE}`;
    let sync: CliProcess | undefined;
    let syncing = false;
    let pagesDuringSync = 0;
    for (let n = 0; next; n += 1) {
      const via = n % 2 === 0 ? a : b;
      const body = await page(on(via, next));
      listed.push(...body.value.map((f) => ({ ...f, via })));
      next = body['@odata.nextLink'];
      if (n === 1) {
        // The source changes and a sync (a third process) writes it while the crawl goes on.
        for (const name of deleted) fs.rmSync(path.join(root, name));
        for (const name of changed) fs.appendFileSync(path.join(root, name), '\nEdited.\n');
        writeTree(root, added);
        sync = startCli(['sync', 'filesystem'], env);
        syncing = true;
        void sync.exited.then(() => (syncing = false));
        await runStarted(schema, () => !syncing);
      }
      // While the sync runs, a page every 50 ms: the crawl and the sync's writes interleave.
      if (syncing) {
        pagesDuringSync += 1;
        await sleep(50);
      }
    }
    expect((await sync?.exited)?.code).toBe(0);

    console.log(`[replicas test] ${pagesDuringSync} pages crawled while the sync ran`);
    expect(pagesDuringSync).toBeGreaterThan(0);
    expect(summaryOf(sync?.stdout() ?? '')).toMatchObject({
      status: 'succeeded',
      counts: { added: added.length, changed: changed.length, deleted: deleted.length, failed: 0 },
    });

    const ids = listed.map((f) => f.id);
    expect(ids.length).toBe(new Set(ids).size); // nothing twice
    const idOf = (name: string): string => `filesystem:${name}`;
    const allAlong = initial.filter((name) => !deleted.includes(name)).map(idOf);
    expect(allAlong.filter((id) => !ids.includes(id))).toEqual([]);
    expect(new Set(listed.map((f) => f.via))).toEqual(new Set([a, b]));

    // Each binary through the replica that did not list it: content and checksum from the database blob store.
    const binaries = listed.filter((f) => f.content.download_path && f.id.endsWith('.txt') && allAlong.includes(f.id));
    expect(binaries.length).toBeGreaterThanOrEqual(20);
    for (const file of binaries.slice(0, 20)) {
      const other = file.via === a ? b : a;
      const res: FreshResponse = await freshGet(`${other}/v1/files${file.content.download_path}`, { Authorization: KEY_CRAWL });
      expect({ path: file.content.download_path, status: res.status, body: res.status === 200 ? '' : res.body }).toEqual({
        path: file.content.download_path,
        status: 200,
        body: '',
      });
      const expected = fs.readFileSync(path.join(root, file.id.slice('filesystem:'.length)));
      expect(res.bytes.equals(expected)).toBe(true);
      expect(res.headers['checksum-sha256']).toBe(crypto.createHash('sha256').update(expected).digest('hex'));
    }
  });

  it('holds one rate limit across both replicas: no more than the limit admitted in all', async () => {
    const [a, b] = bases as [string, string];
    const statuses: number[] = [];
    const answeredBy = new Map<string, number[]>([
      [a, []],
      [b, []],
    ]);
    for (let round = 0; round < 6; round += 1) {
      const batch = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const base = i % 2 === 0 ? a : b;
          const res = await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_LIMIT });
          answeredBy.get(base)?.push(res.status);
          return res;
        }),
      );
      statuses.push(...batch.map((r) => r.status));
      for (const res of batch) expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    }
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    for (const [, seen] of answeredBy) {
      expect(seen).toContain(200);
      expect(seen).toContain(429);
    }
  });

  it('finishes a crawl on one replica after the other is killed mid-crawl', async () => {
    const [a, b] = bases as [string, string];
    const ids: string[] = [];
    let next: string | undefined = `${a}/v1/files?$top=${PAGE}`;
    for (let n = 0; next; n += 1) {
      if (n === 3) {
        (replicas[0] as CliProcess).child.kill('SIGKILL');
        await (replicas[0] as CliProcess).exited;
        await expect(freshGet(`${a}/readyz`)).rejects.toThrow();
      }
      const via = n < 3 && n % 2 === 0 ? a : b;
      const body = await page(on(via, next));
      ids.push(...body.value.map((f) => f.id));
      next = body['@odata.nextLink'];
    }
    expect(ids.length).toBe(new Set(ids).size);
    const db = knex({ client: 'pg', connection: pgUrl, searchPath: [schema], pool: { min: 0, max: 1 } });
    const staged = (await db('files').select('id')).map((r: { id: string }) => r.id);
    await db.destroy();
    expect([...ids].sort()).toEqual([...staged].sort());
  });
});
