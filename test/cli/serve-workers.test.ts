import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import knex from 'knex';
import { createDb } from '../../src/staging/database/create-db';
import { StagingWriter } from '../helpers/staging-writer';
import { freshGet } from '../helpers/fresh-get';
import { htmlFile } from '../helpers/staging-fixtures';
import { dropKeys, testRedisUrl, uniqueKeyPrefix } from '../helpers/test-redis';
import { startCli, type CliProcess } from '../e2e/cli-process';

/**
 * `serve` with WEB_CONCURRENCY=2, as real processes on the embedded SQLite database: the primary
 * prepares staging once, both workers serve one port, the rate limit is one count across them
 * (kept by the primary), a killed worker is replaced, SIGHUP restarts them one at a time without
 * a refused request, and SIGTERM drains and ends them all.
 */

jest.setTimeout(180_000);

const KEY_LIMITED = 'workers-key-limited-0123456789';
const KEY_FREE = 'workers-key-probe-0123456789ab';
const METRICS_TOKEN = 'workers-metrics-token-0123456789';
const LISTENING = /listening on http:\/\/localhost:(\d+)\/v1\/files \(2 workers\)/;

/** `serve` as a real process; LOG_LEVEL info, so requests and workers are logged. */
const serve = (env: Record<string, string>): CliProcess => startCli(['serve'], { LOG_LEVEL: 'info', ...env });
const logged = (gw: CliProcess, msg: string): Array<Record<string, unknown>> => gw.logs().filter((log) => log.msg === msg);

/** Which worker logged the request with this X-Request-Id (waiting for its line: it can follow the answer). */
async function workerOf(gw: CliProcess, requestId: string): Promise<unknown> {
  return (await gw.waitForLog((log) => log.reqId === requestId && log.msg === 'request completed', requestId)).worker;
}

describe('serve with WEB_CONCURRENCY=2 (real processes, embedded SQLite)', () => {
  let dir: string;
  let gw: CliProcess | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-workers-'));
  });
  afterEach(async () => {
    if (gw) {
      gw.child.kill('SIGKILL');
      await gw.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prepares once, serves from both workers with one rate limit, replaces a dead worker, restarts on SIGHUP and drains on SIGTERM', async () => {
    gw = serve({
      WEB_CONCURRENCY: '2',
      PORT: '0',
      HOST: '127.0.0.1',
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: `${KEY_LIMITED},${KEY_FREE}`,
      RATE_LIMIT_REQUESTS: '20',
      METRICS_TOKEN,
    });
    const port = LISTENING.exec(await gw.waitForLine((line) => LISTENING.test(line)))?.[1];
    const base = `http://127.0.0.1:${port}`;
    await gw.waitForLog((log) => log.msg === 'gateway listening with serving workers');
    expect(logged(gw, 'applied staging migrations')).toHaveLength(1);
    expect(gw.logs().filter((log) => String(log.msg).startsWith('loaded the demo corpus'))).toHaveLength(1);
    const pids = logged(gw, 'serving worker listening').map((log) => log.pid as number);
    expect(new Set(pids).size).toBe(2);
    expect((await freshGet(`${base}/readyz`)).status).toBe(200);

    // One budget for the key, whichever worker answers; each request on a connection of its own.
    const answers = [];
    for (let i = 0; i < 26; i += 1) answers.push(await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_LIMITED, 'X-Request-Id': `limited-${i}` }));
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(20).fill(200), ...Array<number>(6).fill(429)]);
    expect(answers.slice(0, 20).map((a) => a.headers['x-ratelimit-remaining'])).toEqual(Array.from({ length: 20 }, (_, i) => String(19 - i)));
    const served = new Set<unknown>();
    for (let i = 0; i < answers.length; i += 1) served.add(await workerOf(gw, `limited-${i}`));
    expect(served).toEqual(new Set([1, 2]));

    // /metrics, answered by either worker, gives the whole gateway's figures: requests add up,
    // figures read from the database count once.
    const scrape = await freshGet(`${base}/metrics`, { Authorization: `Bearer ${METRICS_TOKEN}` });
    expect(scrape.status).toBe(200);
    expect(scrape.body).toMatch(/content_gateway_http_requests_total\{[^}]*route="listFiles"[^}]*status="200"[^}]*\} 20\n/);
    const staged = Number(/content_gateway_staged_rows\{table="files",status="active"\} (\d+)/.exec(scrape.body)?.[1]);
    const listed = JSON.parse((await freshGet(`${base}/v1/files?$top=1000`, { Authorization: KEY_FREE })).body) as { value: Array<{ status?: string }> };
    expect(staged).toBeGreaterThan(0);
    expect(staged).toBe(listed.value.filter((f) => f.status !== 'deleted').length);

    // A worker that dies is replaced; the other keeps serving meanwhile.
    process.kill(pids[0] as number, 'SIGKILL');
    const died = await gw.waitForLog((log) => log.msg === 'serving worker died; starting a replacement');
    expect(died).toMatchObject({ pid: pids[0], signal: 'SIGKILL' });
    expect((await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_FREE })).status).toBe(200);
    await gw.waitForLog((log) => log.msg === 'serving worker listening' && log.worker === 3);

    // SIGHUP: every worker replaced, one at a time, while four clients keep opening connections
    // (a worker leaving must not take a connection handed to it along unanswered).
    gw.child.kill('SIGHUP');
    const during: number[] = [];
    let done = false;
    const finished = gw.waitForLog((log) => log.msg === 'rolling restart finished').finally(() => (done = true));
    const client = async (): Promise<void> => {
      while (!done) during.push((await freshGet(`${base}/v1/files?$top=1`, { Authorization: KEY_FREE })).status);
    };
    await Promise.all([client(), client(), client(), client()]);
    await finished;
    expect(during.length).toBeGreaterThan(0);
    // Answered throughout (a refused connection would have thrown): served, or refused by the
    // key's budget, which the primary kept counting across the restart.
    expect(during.filter((status) => status !== 200 && status !== 429)).toEqual([]);
    expect(during).toContain(200);
    // Workers 1 and 2 (in whichever order they came up), 3 replacing the dead one, 4 and 5 the restart.
    expect(
      logged(gw, 'serving worker listening')
        .map((log) => log.worker as number)
        .sort((x, y) => x - y),
    ).toEqual([1, 2, 3, 4, 5]);

    // SIGTERM: the workers drain and exit, then the primary.
    const drainedBefore = logged(gw, 'shutting down: finishing in-flight requests').length;
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toEqual({ code: 0, signal: null });
    expect(logged(gw, 'shutting down: finishing in-flight requests').length - drainedBefore).toBe(2);
    expect(
      gw
        .logs()
        .filter((log) => log.level === 50)
        .map((log) => log.msg),
    ).toEqual(['serving worker died; starting a replacement']);
    gw = undefined;
  });
});

const pgUrl = process.env.TEST_DATABASE_URL;
const describeWithPostgres = pgUrl ? describe : describe.skip;

describeWithPostgres('serve with WEB_CONCURRENCY=2 on Postgres (Redis too when TEST_REDIS_URL is set)', () => {
  const schema = `t_${crypto.randomBytes(6).toString('hex')}`;
  const prefix = uniqueKeyPrefix();
  let gw: CliProcess | undefined;
  beforeAll(async () => {
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('create schema ??', [schema]);
    await admin.destroy();
  });
  afterAll(async () => {
    gw?.child.kill('SIGKILL');
    await gw?.exited;
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw('drop schema if exists ?? cascade', [schema]);
    await admin.destroy();
    await dropKeys(prefix);
  });

  // Every connection the gateway opens names itself, so the test can count them on the server.
  const applicationName = `gw_${schema}`;
  // `?? ''`: a skipped describe still runs its body, where TEST_DATABASE_URL is unset.
  const gatewayUrl = `${pgUrl ?? ''}${(pgUrl ?? '').includes('?') ? '&' : '?'}application_name=${applicationName}`;

  it('migrates the empty schema once, and a crawl whose pages land on either worker returns every file exactly once', async () => {
    gw = serve({
      WEB_CONCURRENCY: '2',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: gatewayUrl,
      DATABASE_MAX_CONNECTIONS: '6',
      // The burst below (60 requests at once) is about the connection budget: with the default cap
      // of 64 split between the workers (32 each), a slow machine could leave more than 32 in
      // flight on one worker and shed them with 503s. The cap has tests of its own (admission-load).
      MAX_CONCURRENT_REQUESTS: '0',
      DATABASE_SCHEMA: schema,
      GATEWAY_API_KEY: KEY_FREE,
      ...(testRedisUrl ? { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: prefix } : {}),
    });
    const port = LISTENING.exec(await gw.waitForLine((line) => LISTENING.test(line)))?.[1];
    expect(logged(gw, 'applied staging migrations')).toHaveLength(1);
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
    const workers = new Set<unknown>();
    for (let i = 0; i < remaining.length; i += 1) workers.add(await workerOf(gw, `page-${i}`));
    expect(workers).toEqual(new Set([1, 2]));
  });

  it('keeps to DATABASE_MAX_CONNECTIONS across its workers under a burst of parallel requests', async () => {
    const port = LISTENING.exec(gw?.stdout() ?? '')?.[1];
    const base = `http://127.0.0.1:${port}`;
    const paths = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? `/v1/files/test%3Apg-${String(i).padStart(3, '0')}` : `/v1/files?$top=${10 + i}`));
    const opened: number[] = [];
    const admin = knex({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    try {
      for (let round = 0; round < 3; round += 1) {
        const answers = await Promise.all(paths.map((p) => freshGet(`${base}${p}`, { Authorization: KEY_FREE })));
        expect(answers.every((a) => a.status === 200)).toBe(true);
        const rows = (await admin.raw('select count(*)::int as n from pg_stat_activity where application_name = ?', [applicationName])) as {
          rows: Array<{ n: number }>;
        };
        opened.push(rows.rows[0]?.n ?? 0);
      }
    } finally {
      await admin.destroy();
    }
    // Each worker's share is 3, all of it knex's pool (list pages included; the URL's application_name on every session).
    expect(Math.max(...opened)).toBeLessThanOrEqual(6);
    expect(Math.min(...opened)).toBeGreaterThanOrEqual(2);
  });
});
