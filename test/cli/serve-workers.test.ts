import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import knex from 'knex';
import { createDb } from '../../src/staging/create-db';
import { StagingWriter } from '../../src/staging/staging-writer';
import { freshGet } from '../helpers/fresh-get';
import { htmlFile } from '../helpers/staging-fixtures';
import { dropKeys, testRedisUrl, uniqueKeyPrefix } from '../helpers/test-redis';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';

/**
 * `serve` with WEB_CONCURRENCY=2, as real processes on the embedded SQLite database: the primary
 * prepares staging once, both workers serve one port, the rate limit is one count across them
 * (kept by the primary), a killed worker is replaced, SIGHUP restarts them one at a time without
 * a refused request, and SIGTERM drains and ends them all.
 */

jest.setTimeout(180_000);

const KEY_LIMITED = 'workers-key-limited-0123456789';
const KEY_FREE = 'workers-key-probe-0123456789ab';
const count = (text: string, pattern: RegExp): number => (text.match(new RegExp(pattern.source, 'g')) ?? []).length;

/** Which worker logged the request with this X-Request-Id. */
function workerOf(output: string, requestId: string): number | undefined {
  const line = output.split('\n').find((l) => l.includes(`"reqId":"${requestId}"`) && l.includes('request completed'));
  return line ? (JSON.parse(line) as { worker?: number }).worker : undefined;
}

describe('serve with WEB_CONCURRENCY=2 (real processes, embedded SQLite)', () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-workers-'));
  });
  afterEach(async () => {
    if (gw) {
      gw.kill('SIGKILL');
      await gw.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prepares once, serves from both workers with one rate limit, replaces a dead worker, restarts on SIGHUP and drains on SIGTERM', async () => {
    gw = startGatewayProcess(['serve'], {
      WEB_CONCURRENCY: '2',
      PORT: '0',
      HOST: '127.0.0.1',
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: `${KEY_LIMITED},${KEY_FREE}`,
      RATE_LIMIT_REQUESTS: '20',
    });
    const [, port] = await gw.waitFor(/listening on http:\/\/localhost:(\d+)\/v1\/files \(2 workers\)/);
    const base = `http://127.0.0.1:${port}`;
    await gw.waitFor(/serving worker listening[\s\S]*serving worker listening/);
    const started = gw.output();
    expect(count(started, /applied staging migrations/)).toBe(1);
    expect(count(started, /loaded the demo corpus/)).toBe(1);
    const pids = [...started.matchAll(/"pid":(\d+),"port":\d+,"msg":"serving worker listening"/g)].map((m) => Number(m[1]));
    expect(new Set(pids).size).toBe(2);
    expect((await freshGet(`${base}/readyz`)).status).toBe(200);

    // One budget for the key, whichever worker answers; each request on a connection of its own.
    const answers = [];
    for (let i = 0; i < 26; i += 1) answers.push(await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_LIMITED, 'X-Request-Id': `limited-${i}` }));
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(20).fill(200), ...Array<number>(6).fill(429)]);
    expect(answers.slice(0, 20).map((a) => a.headers['x-ratelimit-remaining'])).toEqual(Array.from({ length: 20 }, (_, i) => String(19 - i)));
    // (A worker's log line can reach the output just after its answer.)
    for (let i = 0; i < 26; i += 1) await gw.waitFor(new RegExp(`"reqId":"limited-${i}"`));
    const served = new Set(answers.map((_, i) => workerOf(gw?.output() ?? '', `limited-${i}`)));
    expect(served).toEqual(new Set([1, 2]));

    // A worker that dies is replaced; the other keeps serving meanwhile.
    let mark = gw.output().length;
    process.kill(pids[0] as number, 'SIGKILL');
    await gw.waitFor(/serving worker died; starting a replacement/, { from: mark });
    expect((await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_FREE })).status).toBe(200);
    await gw.waitFor(/"worker":3,"pid":\d+,"port":\d+,"msg":"serving worker listening"/, { from: mark });

    // SIGHUP: every worker replaced, one at a time, while requests keep being answered.
    mark = gw.output().length;
    gw.kill('SIGHUP');
    const during: number[] = [];
    let done = false;
    const finished = gw.waitFor(/rolling restart finished/, { from: mark }).finally(() => (done = true));
    while (!done) during.push((await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_FREE })).status);
    await finished;
    expect(during.length).toBeGreaterThan(0);
    // Answered throughout (a refused connection would have thrown): served, or refused by the
    // key's budget, which the primary kept counting across the restart.
    expect(during.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(during).toContain(200);
    expect(count(gw.output().slice(mark), /"msg":"serving worker listening"/)).toBe(2);

    // SIGTERM: the workers drain and exit, then the primary.
    mark = gw.output().length;
    gw.kill('SIGTERM');
    expect(await gw.exited).toBe(0);
    expect(count(gw.output().slice(mark), /shutting down: finishing in-flight requests/)).toBe(2);
    const errors = gw.output().split('\n').filter((line) => line.includes('"level":50'));
    expect(errors.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['serving worker died; starting a replacement']);
    gw = undefined;
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;

describeWithPostgres('serve with WEB_CONCURRENCY=2 on Postgres (Redis too when TEST_REDIS_URL is set)', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const prefix = uniqueKeyPrefix();
  let gw: GatewayProcess | undefined;
  beforeAll(async () => {
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
  });
  afterAll(async () => {
    gw?.kill('SIGKILL');
    await gw?.exited;
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('drop schema if exists ?? cascade', [schema]);
    await admin.destroy();
    await dropKeys(prefix);
  });

  it('migrates the empty schema once, and a crawl whose pages land on either worker returns every file exactly once', async () => {
    gw = startGatewayProcess(['serve'], {
      WEB_CONCURRENCY: '2',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: pgUrl as string,
      DATABASE_SCHEMA: schema,
      GATEWAY_API_KEY: KEY_FREE,
      ...(testRedisUrl ? { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: prefix } : {}),
    });
    const [, port] = await gw.waitFor(/listening on http:\/\/localhost:(\d+)\/v1\/files \(2 workers\)/);
    expect(count(gw.output(), /applied staging migrations/)).toBe(1);
    const db = createDb({ databaseUrl: pgUrl, sqlitePath: ':memory:', searchPath: schema });
    const ids = Array.from({ length: 230 }, (_, i) => `test:pg-${String(i).padStart(3, '0')}`);
    await new StagingWriter(db).putFiles(ids.map((id) => ({ file: htmlFile(id), permissions: [] })));
    await db.destroy();

    const seen: string[] = [];
    const remaining: number[] = [];
    let next: string | undefined = `http://127.0.0.1:${port}/v1/files?$top=50`;
    for (let page = 0; next; page += 1) {
      const res = await freshGet(next, { Authorization: KEY_FREE, 'X-Request-Id': `page-${page}` });
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
      const body = JSON.parse(res.body) as { value: Array<{ id: string }>; '@odata.nextLink'?: string };
      seen.push(...body.value.map((f) => f.id));
      next = body['@odata.nextLink']?.replace(/^http:\/\/[^/]+/, `http://127.0.0.1:${port}`);
    }
    expect(seen.sort()).toEqual(ids);
    // One count for the key across both workers (in the primary, or in Redis).
    expect(remaining).toEqual(remaining.map((_, i) => (remaining[0] as number) - i));
    for (let i = 0; i < remaining.length; i += 1) await gw.waitFor(new RegExp(`"reqId":"page-${i}"`));
    const workers = new Set(remaining.map((_, i) => workerOf(gw?.output() ?? '', `page-${i}`)));
    expect(workers).toEqual(new Set([1, 2]));
  });
});
