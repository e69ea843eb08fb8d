import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createDb, type Db } from '../../src/staging/database/create-db';
import { SyncLock } from '../../src/staging/repositories/sync-lock';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases';
import { runCli, startCli, summaryLines, type CliProcess } from './cli-process';
import { freePort } from '../helpers/free-port';

jest.setTimeout(120_000);

/**
 * `serve` with `WEBHOOKS_PUBLIC_URL`, through the front door: the gateway as a child process, the
 * work-management mock on loopback, the webhook registered with `webhooks register work-management`
 * (the service's handshake answered by the running gateway), and changes made at the mock: each
 * signed delivery is followed by an incremental run (in the serving process with SQLite, a job on
 * the sync queue with Postgres), no sync started by the test.
 */
const KEY = 'serve-webhooks-key-0123456789abcdef';
const SOURCE = 'work-management';

function plainTask(m: RunningMock): string {
  const store = m.mock.model;
  const org = m.mock.organization.organization;
  const task = [...store.indexes.tasks.values()].find((t) => t.workspace === org && t.memberships.length > 0 && t.parent === null);
  if (!task) throw new Error('the organization has no task in a project');
  return task.gid;
}

interface Deployment {
  m: RunningMock;
  serve: CliProcess;
  env: Record<string, string>;
  url: string;
  stop(): Promise<void>;
}

/** The mock, then `serve` on a port chosen first (the public URL names it), with `extra` (the database). */
async function deploy(dir: string, extra: Record<string, string>): Promise<Deployment> {
  const m = await startMock({
    seed: 'serve-webhooks',
    size: { tasks: 30, personalWorkspace: false },
    hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 },
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    BLOB_DIR: path.join(dir, 'blobs'),
    GATEWAY_API_KEY: KEY,
    LOG_LEVEL: 'info',
    WORK_MANAGEMENT_BASE_URL: m.base,
    WORK_MANAGEMENT_TOKEN: m.mock.token,
    WEBHOOKS_PUBLIC_URL: url,
    SYNC_JOB_RETRY_DELAY_SECONDS: '1',
    ...extra,
  };
  const serve = startCli(['serve'], env);
  await serve.waitForLine((line) => line.includes('listening on http://localhost:'), 'serve listening');
  return {
    m,
    serve,
    env,
    url,
    stop: async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await m.close();
    },
  };
}

async function register(d: Deployment): Promise<string> {
  const r = await runCli(['webhooks', 'register', SOURCE], d.env);
  expect(r.stderr).toBe('');
  const [, gid] = /registered webhook (\d+): workspace \d+ → (\S+)/.exec(r.stdout) ?? [];
  expect(r.stdout).toContain(`→ ${d.url}/webhooks/${SOURCE}`);
  return gid ?? '';
}

async function rename(m: RunningMock, gid: string, name: string): Promise<void> {
  expect((await m.api(`/tasks/${gid}`, { method: 'PUT', body: { data: { name } } })).status).toBe(200);
}

async function served(url: string, gid: string): Promise<string> {
  const res = await fetch(`${url}/v1/files/${encodeURIComponent(`${SOURCE}:task:${gid}`)}`, { headers: { authorization: `Bearer ${KEY}` } });
  if (!res.ok) return '';
  return JSON.stringify(await res.json());
}

/** The incremental runs `serve` printed so far. */
const runsOf = (serve: CliProcess) => summaryLines(serve.stdout()).filter((l) => l.source === SOURCE && l.mode === 'incremental');

describe('serve with WEBHOOKS_PUBLIC_URL (SQLite: the run happens in the serving process)', () => {
  let dir: string;
  let d: Deployment;
  let db: Db;
  let task: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-serve-webhooks-'));
    d = await deploy(dir, { SQLITE_PATH: path.join(dir, 'gw.sqlite') });
    expect(summaryLines((await runCli(['sync', SOURCE], d.env)).stdout)[0]).toMatchObject({ mode: 'full', status: 'succeeded' });
    await register(d);
    db = createDb({ sqlitePath: path.join(dir, 'gw.sqlite') });
    task = plainTask(d.m);
  });
  afterAll(async () => {
    await db?.destroy();
    await d?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a signed delivery from the service is followed by an incremental run, and the change is served', async () => {
    const before = runsOf(d.serve).length;
    await rename(d.m, task, 'Renamed, then delivered');
    await d.serve.waitForLine(() => runsOf(d.serve).length > before, 'an incremental run after the delivery');
    expect(runsOf(d.serve).at(-1)).toMatchObject({ status: 'succeeded' });
    expect(await served(d.url, task)).toContain('Renamed, then delivered');
    const hooks = await d.m.api(`/webhooks?workspace=${d.m.mock.organization.organization}`);
    expect(hooks.body.data).toEqual([expect.objectContaining({ target: `${d.url}/webhooks/${SOURCE}?resource=${d.m.mock.organization.organization}` })]);
  });

  it('a delivery while the source is synced elsewhere (its lock held) is not an error: one run follows once the lock is free', async () => {
    const lock = new SyncLock(db, SOURCE, 60_000);
    await lock.acquire();
    const before = runsOf(d.serve).length;
    try {
      await rename(d.m, task, 'Renamed while locked');
      await d.serve.waitForLog((log) => log.msg === 'webhook: the source is being synced elsewhere; one more run after it', 'the run put off');
      await rename(d.m, task, 'Renamed again while locked');
      expect(runsOf(d.serve).length).toBe(before);
    } finally {
      await lock.release();
    }
    await d.serve.waitForLine(() => runsOf(d.serve).length > before, 'the run after the lock was released');
    expect(runsOf(d.serve).at(-1)).toMatchObject({ status: 'succeeded' });
    expect(await served(d.url, task)).toContain('Renamed again while locked');
    expect(d.serve.logs().filter((l) => l.msg === 'the sync a webhook asked for failed')).toEqual([]);
  });

  it('webhooks list shows the registration and delete removes it; no public URL or another adapter is a usage error', async () => {
    const listed = await runCli(['webhooks', 'list', SOURCE], d.env);
    const [, gid] = /^(\d+) {2}active {2}workspace \d+ → (\S+)/m.exec(listed.stdout) ?? [];
    expect(gid).toBeDefined();
    expect((await runCli(['webhooks', 'delete', SOURCE, gid ?? ''], d.env)).stdout).toContain(`deleted webhook ${gid}`);
    expect((await runCli(['webhooks', 'list', SOURCE], d.env)).stdout).toContain('No webhook.');
    const { WEBHOOKS_PUBLIC_URL: _unset, ...without } = d.env;
    const refused = await runCli(['webhooks', 'register', SOURCE], without);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('set WEBHOOKS_PUBLIC_URL')]);
    const other = await runCli(['webhooks', 'register', 'filesystem'], d.env);
    expect([other.code, other.stderr]).toEqual([1, expect.stringContaining("'filesystem' receives no webhooks")]);
  });
  it('register names what the service must reach when the handshake fails; serve refuses WEBHOOKS_PUBLIC_URL without the adapter', async () => {
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    const failed = await runCli(['webhooks', 'register', SOURCE], { ...d.env, WEBHOOKS_PUBLIC_URL: nowhere });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`The service completes the registration by calling ${nowhere}/webhooks/${SOURCE}`);
    expect(failed.stderr).not.toContain(d.m.mock.token);
    // The failed registration closed the handshake window it opened: nobody else may set the secret in what was left of it.
    const intruder = await fetch(`${d.url}/webhooks/${SOURCE}?resource=${d.m.mock.organization.organization}`, {
      method: 'POST',
      headers: { 'X-Hook-Secret': 'an-intruders-secret-0123456789' },
    });
    expect([intruder.status, intruder.headers.get('x-hook-secret')]).toEqual([401, null]);
    const { WORK_MANAGEMENT_BASE_URL: _b, WORK_MANAGEMENT_TOKEN: _t, ...unconfigured } = d.env;
    const serve = await runCli(['serve'], { ...unconfigured, PORT: '0', SQLITE_PATH: path.join(dir, 'other.sqlite') });
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('WEBHOOKS_PUBLIC_URL is set, but the work-management adapter is not configured');
  });

  it('two webhooks of the source (the workspace and a project) each keep the secret of their own handshake: deliveries to both are accepted', async () => {
    const org = d.m.mock.organization.organization;
    const project = d.m.mock.model.indexes.tasks.get(task)?.memberships[0]?.project ?? '';
    await register(d);
    const second = await runCli(['webhooks', 'register', SOURCE, '--resource', project], d.env);
    expect([second.stderr, second.stdout]).toEqual(['', expect.stringContaining(`resource ${project} → ${d.url}/webhooks/${SOURCE}?resource=${project}`)]);
    await rename(d.m, task, 'Renamed, delivered to two webhooks');
    type Hook = { resource: { gid: string }; last_success_at: string | null; last_failure_at: string | null };
    let hooks: Hook[] = [];
    for (let tries = 0; tries < 600; tries++) {
      hooks = ((await d.m.api(`/webhooks?workspace=${org}&opt_fields=resource,last_success_at,last_failure_at`)).body as { data: Hook[] }).data;
      if (hooks.length === 2 && hooks.every((h) => h.last_success_at !== null || h.last_failure_at !== null)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(hooks.map((h) => [h.resource.gid, h.last_success_at !== null, h.last_failure_at]).sort()).toEqual(
      [
        [org, true, null],
        [project, true, null],
      ].sort(),
    );
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;
if (!pgUrl) {
  describe.skip('serve with WEBHOOKS_PUBLIC_URL on Postgres (TEST_DATABASE_URL is not set: skipped)', () => {
    it('enqueues an incremental sync job per delivery, coalesced', () => undefined);
  });
}

(pgUrl ? describe : describe.skip)('serve with WEBHOOKS_PUBLIC_URL on Postgres (a delivery enqueues a job for sync-worker)', () => {
  let dir: string;
  let d: Deployment;
  let pg: TestDatabase;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-serve-webhooks-pg-'));
    pg = await createTestDatabase('postgres');
    d = await deploy(dir, pg.env);
    await register(d);
  });
  afterAll(async () => {
    await d?.stop();
    await pg?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const jobs = async (): Promise<Array<{ state: string; data: { adapter: string; source: string; kind: string } }>> =>
    (await pg.db
      .withSchema(pg.env.SYNC_QUEUE_SCHEMA as string)
      .from('job')
      .where({ name: `sync.${SOURCE}.incremental` })
      .select('state', 'data')) as never;

  it('each delivery enqueues an incremental run of the source, deliveries while one waits join it (stately queue), and a sync-worker runs it', async () => {
    const task = plainTask(d.m);
    await rename(d.m, task, 'Renamed on Postgres');
    await d.serve.waitForLog((log) => log.msg === 'webhook: incremental sync enqueued', 'the job enqueued');
    expect(await jobs()).toEqual([{ state: 'created', data: { adapter: SOURCE, source: SOURCE, kind: 'incremental' } }]);
    await rename(d.m, task, 'Renamed on Postgres again');
    await d.serve.waitForLog((log) => log.msg === 'webhook: incremental sync enqueued' && log.coalesced === true, 'the second request coalesced');
    expect(await jobs()).toHaveLength(1);
    expect(runsOf(d.serve)).toEqual([]);
    // A sync-worker works the job: the change is served.
    const worker = startCli(['sync-worker', SOURCE, '--every', '1h', '--full-every', 'off'], d.env);
    try {
      await worker.waitForLine((line) => summaryLines(line).some((l) => l.source === SOURCE), 'the worker ran the job');
      expect(summaryLines(worker.stdout())[0]).toMatchObject({ status: 'succeeded' });
      expect(await served(d.url, task)).toContain('Renamed on Postgres again');
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });
});
