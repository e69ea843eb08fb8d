import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { runCli, startCli, type CliProcess } from '../e2e/cli-process';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from '../helpers/test-databases';
import { commandOf, envOf, interpolateUnset, ROOT, service, services, type Service } from './compose-file';

/**
 * Issue 29, point 4: the compose file's services work out of the box. No Docker engine runs here,
 * so each service built from our image runs its command line as the container would: the built
 * program, the image's environment (Dockerfile ENV), the service's environment with its defaults,
 * paths translated through its volumes to folders here, and the database on loopback (SQLite, and
 * Postgres at TEST_DATABASE_URL).
 */

/** The image's own ENV (Dockerfile, runtime stage). */
const IMAGE_ENV = { NODE_ENV: 'production', PORT: '3000', SQLITE_PATH: '/data/gateway.sqlite', BLOB_DIR: '/data/blobs' };
const API_KEY = crypto.randomBytes(32).toString('hex');
const ours = (s: Service): boolean => s.build !== undefined && !s.profiles?.length;

/** Bind mounts (`./x:/y`) of a service: host source (in the repository) → container path. */
function bindMounts(s: Service): Array<{ source: string; target: string }> {
  return (s.volumes ?? []).flatMap((v) => {
    const [source = '', target = ''] = typeof v === 'string' ? interpolateUnset(v).split(':') : [v.source ?? '', v.target];
    return source.startsWith('.') || source.startsWith('/') ? [{ source, target }] : [];
  });
}

describe('docker-compose.yml: what the default services mount', () => {
  it('every folder or file a service mounts from the repository is in it', () => {
    const missing = Object.entries(services).flatMap(([name, s]) =>
      bindMounts(s)
        .filter((m) => !fs.existsSync(path.resolve(ROOT, m.source)))
        .map((m) => `${name}: ${m.source}`),
    );
    expect(missing).toEqual([]);
  });
});

/**
 * The service's environment as the container sees it, run here: container paths mapped through its
 * volumes (named volumes to one temp folder each, shared by services as Compose shares them),
 * Postgres to the test database, and the listening port to a free one.
 */
function hostEnv(s: Service, volumes: string, db: TestDatabase): Record<string, string> {
  const mounts = (s.volumes ?? []).map((v) => {
    const [source = '', target = ''] = typeof v === 'string' ? interpolateUnset(v).split(':') : [v.source ?? '', v.target];
    if (source.startsWith('.') || source.startsWith('/')) return { target, local: path.resolve(ROOT, source) };
    const local = path.join(volumes, source);
    fs.mkdirSync(local, { recursive: true });
    return { target, local };
  });
  const toHost = (value: string): string => {
    const m = mounts.find((mount) => value === mount.target || value.startsWith(`${mount.target}/`));
    return m ? m.local + value.slice(m.target.length) : value;
  };
  const env: Record<string, string> = { ...IMAGE_ENV };
  for (const [name, value] of Object.entries(envOf(s))) env[name] = interpolateUnset(value);
  for (const [name, value] of Object.entries(env)) if (value.startsWith('/')) env[name] = toHost(value);
  delete env.DATABASE_URL;
  return { ...env, ...db.env, GATEWAY_API_KEY: API_KEY, PORT: '0', HOST: '127.0.0.1' };
}

/** One GET on a connection of its own (closed after it), so the gateway's shutdown waits for none. */
function getJson(url: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { Authorization: `Bearer ${API_KEY}` } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
      })
      .on('error', reject);
  });
}

const withPostgres: DatabaseKind[] = process.env.TEST_DATABASE_URL ? ['postgres'] : [];

describe.each(['sqlite', ...withPostgres] as DatabaseKind[])('docker-compose.yml: each service command runs as Compose starts it (%s)', (kind) => {
  let db: TestDatabase;
  let volumes: string;
  const running: CliProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    volumes = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-compose-'));
  });
  afterAll(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await db.destroy();
    fs.rmSync(volumes, { recursive: true, force: true });
  });

  it('runs the services built from the image: the gateway and the sync worker', () => {
    expect(Object.keys(services).filter((name) => ours(service(name)))).toEqual(['gateway', 'sync']);
  });

  it('sync: its first round syncs what is configured (the shipped content folder) without a failure, says once what it skipped, and stops cleanly on SIGTERM', async () => {
    const sync = startCli(commandOf(service('sync')), hostEnv(service('sync'), volumes, db));
    running.push(sync);
    // Its first run starts at once (on Postgres, a job the schedule being overdue queues).
    await sync.waitForLine((l) => /^filesystem: \w+ sync \w+/.test(l), "the folder's first run");
    const out = sync.stdout();
    expect(out).toMatch(/^filesystem: full sync succeeded: files added [1-9]\d*,.* failed 0;/m);
    expect(out).not.toMatch(/not configured —|could not run|refused/);
    const skipped = out.split('\n').filter((l) => !l.startsWith('{') && /skipp/i.test(l));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(/work-management.*sql|sql.*work-management/);
    // Its health check (what `up --wait` waits for) passes once the first round has loaded content.
    const check = service('sync').healthcheck as { test: string[] } | undefined;
    expect(check?.test.slice(0, 3)).toEqual(['CMD', 'node', 'dist/src/main.js']);
    const healthy = await runCli(check?.test.slice(3) ?? [], hostEnv(service('sync'), volumes, db));
    expect(healthy).toMatchObject({ code: 0 });
    sync.child.kill('SIGTERM');
    expect(await sync.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it("gateway: answers /v1/files with the content the sync loaded, as the deployment guide's first curl asks", async () => {
    const gateway = startCli(commandOf(service('gateway')), hostEnv(service('gateway'), volumes, db));
    running.push(gateway);
    const line = await gateway.waitForLine((l) => /listening on http:\/\/[^:]+:\d+\//.test(l), 'the listening line');
    const port = /:(\d+)\//.exec(line)?.[1] ?? '';
    const res = await getJson(`http://127.0.0.1:${port}/v1/files?$top=5`);
    expect(res.status).toBe(200);
    expect((res.body as { value: unknown[] }).value.length).toBeGreaterThan(0);
    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
  }, 120_000);
});

if (!withPostgres.length) {
  describe.skip('docker-compose.yml: each service command on Postgres (TEST_DATABASE_URL is not set: skipped)', () => {
    it('runs the sync and the gateway on Postgres', () => undefined);
  });
}
