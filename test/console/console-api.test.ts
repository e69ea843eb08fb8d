import request from 'supertest';
import { startCli, type CliProcess } from '../e2e/cli-process';
import { databaseKinds } from '../helpers/test-databases';
import { ADMIN_BEARER, ADMIN_KEY, CRAWL_KEY, basic, startConsoleGateway, type ConsoleGateway } from '../helpers/console-gateway';

/**
 * The console through the front door (issue 32): the built gateway, its staging filled by two real
 * syncs of a tree with one file that fails; every JSON endpoint, every page, its credentials, its
 * CSRF tokens and its headers, over real HTTP on loopback, on SQLite and (TEST_DATABASE_URL) Postgres.
 */
jest.setTimeout(120_000);

const PAGES = ['sources', 'runs', 'failing', 'queue'];

/** A page, its CSRF token (from the form or htmx's header) and the cookie it came with. */
async function pageWithToken(url: string, page: string): Promise<{ token: string; cookie: string; html: string }> {
  const res = await request(url).get(`/console/${page}`).set(basic(ADMIN_KEY));
  expect(res.status).toBe(200);
  const token = /"x-csrf-token": "([^"]+)"/.exec(res.text)?.[1] ?? '';
  const cookie = (res.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
  return { token, cookie, html: res.text };
}

describe.each(databaseKinds)('the operator console on %s', (kind) => {
  let gw: ConsoleGateway;
  beforeAll(async () => {
    gw = await startConsoleGateway(kind);
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers nobody without its admin key, and never the crawl key (Bearer or Basic); the admin key opens nothing of /v1', async () => {
    for (const page of ['/console/sources', '/console/api/sources', '/console/api', '/console/']) {
      const none = await request(gw.url).get(page);
      expect({ page, status: none.status, code: none.body.error?.code }).toEqual({ page, status: 401, code: 'AUTHENTICATION_FAILED' });
      expect(none.headers['www-authenticate']).toMatch(/^Basic realm="content-gateway console"/);
      for (const headers of [{ Authorization: `Bearer ${CRAWL_KEY}` }, basic(CRAWL_KEY), basic('wrong')]) {
        expect({ page, status: (await request(gw.url).get(page).set(headers)).status }).toEqual({ page, status: 401 });
      }
    }
    expect((await request(gw.url).get('/console/api/sources').set(ADMIN_BEARER)).status).toBe(200);
    expect((await request(gw.url).get('/console/api/sources').set(basic(ADMIN_KEY))).status).toBe(200);
    expect((await request(gw.url).get('/v1/files').set(ADMIN_BEARER)).status).toBe(401);
    expect(
      (
        await request(gw.url)
          .get('/v1/files')
          .set({ Authorization: `Bearer ${CRAWL_KEY}` })
      ).status,
    ).toBe(200);
  });

  it('lists its pages, their JSON endpoints and actions', async () => {
    const res = await request(gw.url).get('/console/api').set(ADMIN_BEARER);
    expect(res.body.pages.map((p: { path: string }) => p.path)).toEqual(expect.arrayContaining(PAGES));
    expect(res.body.pages.find((p: { path: string }) => p.path === 'failing').actions).toEqual(['retry', 'full-sync']);
  });

  it('sources: the filesystem source, partial (a file still fails since the first run), with what it staged', async () => {
    const runs = (await request(gw.url).get('/console/api/runs').set(ADMIN_BEARER)).body.runs as Array<{ id: number; startedAt: string }>;
    const { sources } = (await request(gw.url).get('/console/api/sources').set(ADMIN_BEARER)).body;
    expect(sources).toEqual([
      expect.objectContaining({
        source: 'filesystem',
        health: 'partial',
        lastRun: expect.objectContaining({ id: runs[0]!.id, kind: 'incremental', result: 'partial success' }),
        running: false,
        oldestFailureSince: runs[1]!.startedAt,
        files: 2,
        users: 2,
        groups: 1,
      }),
    ]);
    expect(sources[0].oldestFailureAgeSeconds).toEqual(expect.any(Number));
    expect(sources[0].accessSyncedAt).toBe((runs[0] as unknown as { finishedAt: string }).finishedAt);
  });

  it('runs: each run with its kind, result (partial success), counts and failed items with their reasons; limit and source filter it', async () => {
    const { runs } = (await request(gw.url).get('/console/api/runs').set(ADMIN_BEARER)).body;
    expect(runs).toHaveLength(2);
    expect(runs[0]).toEqual(
      expect.objectContaining({
        source: 'filesystem',
        kind: 'incremental',
        status: 'succeeded',
        result: 'partial success',
        counts: expect.objectContaining({ added: 0, deleted: 0, failed: 1 }),
        failures: [{ item: 'team/plan.html', reason: expect.stringMatching(/unknown user "ghost"/) }],
        error: null,
      }),
    );
    expect(runs[1]).toEqual(expect.objectContaining({ kind: 'full', result: 'partial success', counts: expect.objectContaining({ added: 2, failed: 1 }) }));
    expect(runs[0].durationSeconds).toBeGreaterThanOrEqual(0);
    expect((await request(gw.url).get('/console/api/runs?limit=1').set(ADMIN_BEARER)).body.runs).toHaveLength(1);
    expect((await request(gw.url).get('/console/api/runs?source=elsewhere').set(ADMIN_BEARER)).body.runs).toEqual([]);
    for (const bad of ['limit=0', 'limit=abc', 'limit=501', 'source=a&source=b']) {
      const res = await request(gw.url).get(`/console/api/runs?${bad}`).set(ADMIN_BEARER);
      expect({ bad, status: res.status, code: res.body.error?.code }).toEqual({ bad, status: 400, code: 'INPUT_VALIDATION_FAILED' });
    }
  });

  it('failing: the item still failing, why, and since which run', async () => {
    const { runs } = (await request(gw.url).get('/console/api/runs').set(ADMIN_BEARER)).body;
    const { items } = (await request(gw.url).get('/console/api/failing').set(ADMIN_BEARER)).body;
    expect(items).toEqual([
      {
        source: 'filesystem',
        item: 'team/plan.html',
        reason: expect.stringMatching(/unknown user "ghost"/),
        since: runs[1].startedAt,
        sinceRun: runs[1].id,
        lastRun: runs[0].id,
      },
    ]);
  });

  it('queue: what schedules syncs here, and the runs under way', async () => {
    const body = (await request(gw.url).get('/console/api/queue').set(ADMIN_BEARER)).body;
    expect(body).toEqual(
      kind === 'sqlite'
        ? expect.objectContaining({ scheduler: 'in-process', queueExists: false, running: [] })
        : expect.objectContaining({ scheduler: 'postgres', queueExists: false, running: [] }),
    );
  });

  it('renders every page from its JSON, under a strict CSP, unframable, with no inline script or style', async () => {
    for (const page of PAGES) {
      const res = await request(gw.url).get(`/console/${page}`).set(basic(ADMIN_KEY));
      expect({ page, status: res.status, type: res.type }).toEqual({ page, status: 200, type: 'text/html' });
      const csp = res.headers['content-security-policy'] as string;
      expect(csp).toMatch(/default-src 'none'/);
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/style-src 'self'(;|$)/);
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      // Every script has a src; no <style> element, no style attribute, no on* handler.
      expect(res.text.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).toBeNull();
      expect(res.text).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
      expect(res.text).not.toMatch(/https?:\/\//);
    }
    expect((await request(gw.url).get('/console/runs').set(basic(ADMIN_KEY))).text).toMatch(
      /partial success[\s\S]*team\/plan\.html[\s\S]*unknown user &quot;ghost&quot;/,
    );
    expect((await request(gw.url).get('/console/failing').set(basic(ADMIN_KEY))).text).toContain('team/plan.html');
  });

  it('serves its assets itself (htmx, Pico) under the same CSP', async () => {
    const html = (await request(gw.url).get('/console/sources').set(basic(ADMIN_KEY))).text;
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const res = await request(gw.url).get(asset);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
    }
  });

  it('refuses an action from a browser without its CSRF token, or with a token but not its cookie; accepts it with both', async () => {
    const { token, cookie } = await pageWithToken(gw.url, 'failing');
    expect(token).toMatch(/\S{20,}/);
    const post = () => request(gw.url).post('/console/api/failing/retry').set(basic(ADMIN_KEY)).type('form');
    for (const [what, res] of [
      ['no token', await post().send({ source: 'filesystem' })],
      ['no token, cookie', await post().set('Cookie', cookie).send({ source: 'filesystem' })],
      ['token, no cookie', await post().send({ source: 'filesystem', _csrf: token })],
      [
        'wrong token',
        await post()
          .set('Cookie', cookie)
          .send({ source: 'filesystem', _csrf: `${token}x` }),
      ],
    ] as const) {
      expect({ what, status: res.status, code: res.body.error?.code }).toEqual({ what, status: 403, code: 'FORBIDDEN' });
    }
    const ok = await post().set('Cookie', cookie).send({ source: 'filesystem', _csrf: token });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toMatch(/^\/console\/failing\?done=/);
    const htmx = await request(gw.url)
      .post('/console/api/failing/full-sync')
      .set({ ...basic(ADMIN_KEY), Cookie: cookie, 'x-csrf-token': token, 'HX-Request': 'true' })
      .type('form')
      .send({ source: 'filesystem' });
    expect(htmx.status).toBe(200);
    expect(htmx.text).toMatch(/<p role="status">.*(full sync of filesystem|sync\.filesystem\.full yet)/);
  });

  it('takes actions from scripts with the admin key (Bearer, no browser, no CSRF token), refuses the crawl key, and refuses bad input with 400', async () => {
    const res = await request(gw.url).post('/console/api/failing/retry').set(ADMIN_BEARER).send({ source: 'filesystem' });
    expect(res.status).toBe(200);
    expect(res.body.message).toMatch(
      kind === 'sqlite' ? /^Started an incremental sync of filesystem/ : /No sync-worker has created the queue sync\.filesystem\.incremental/,
    );
    expect(
      (
        await request(gw.url)
          .post('/console/api/failing/retry')
          .set({ Authorization: `Bearer ${CRAWL_KEY}` })
          .send({ source: 'filesystem' })
      ).status,
    ).toBe(401);
    for (const body of [{}, { source: '' }, { source: ['a', 'b'] }]) {
      const bad = await request(gw.url).post('/console/api/failing/full-sync').set(ADMIN_BEARER).send(body);
      expect({ body, status: bad.status, code: bad.body.error?.code }).toEqual({ body, status: 400, code: 'INPUT_VALIDATION_FAILED' });
    }
    const unknown = await request(gw.url).post('/console/api/failing/full-sync').set(ADMIN_BEARER).send({ source: 'nowhere' });
    expect(unknown.body.message).toMatch(/No registered adapter syncs nowhere/);
    expect((await request(gw.url).get('/console/api/nowhere').set(ADMIN_BEARER)).status).toBe(404);
  });
});

const pgOnly = process.env.TEST_DATABASE_URL ? describe : describe.skip;
if (!process.env.TEST_DATABASE_URL) console.warn('[console tests] TEST_DATABASE_URL is not set: the console over the Postgres job queue is SKIPPED.');

pgOnly('the console over the Postgres job queue', () => {
  let gw: ConsoleGateway;
  let worker: CliProcess | undefined;
  beforeAll(async () => {
    gw = await startConsoleGateway('postgres');
  });
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await gw?.close();
  });

  it("shows a sync-worker's schedules and queues, and a full sync asked for in the console is queued and run by the worker", async () => {
    worker = startCli(['sync-worker', 'filesystem', '--every', '1h', '--full-every', '24h'], { ...gw.env, LOG_LEVEL: 'info' });
    await worker.waitForLog((log) => log.msg === 'sync worker started', 'the sync worker started');
    const queue = (await request(gw.url).get('/console/api/queue').set(ADMIN_BEARER)).body;
    expect(queue).toEqual(expect.objectContaining({ scheduler: 'postgres', queueExists: true }));
    expect(queue.schedules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ queue: 'sync.filesystem.incremental', source: 'filesystem', kind: 'incremental' }),
        expect.objectContaining({ queue: 'sync.filesystem.full', source: 'filesystem', kind: 'full' }),
      ]),
    );
    const before = (await request(gw.url).get('/console/api/runs').set(ADMIN_BEARER)).body.runs.length as number;
    const asked = await request(gw.url).post('/console/api/failing/full-sync').set(ADMIN_BEARER).send({ source: 'filesystem' });
    expect(asked.body.message).toMatch(/^Queued a full sync of filesystem \(job [0-9a-f-]+\)/);
    const job = /job ([0-9a-f-]+)/.exec(asked.body.message)![1];
    // The worker picks the job up and records the run under it.
    let run: { kind: string; jobId: string | null; result: string } | undefined;
    for (let i = 0; i < 100 && !run?.result.match(/success|succeeded/); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const runs = (await request(gw.url).get('/console/api/runs').set(ADMIN_BEARER)).body.runs as Array<{
        kind: string;
        jobId: string | null;
        result: string;
      }>;
      run = runs.length > before ? runs.find((r) => r.jobId === job) : undefined;
    }
    expect(run).toEqual(expect.objectContaining({ kind: 'full', jobId: job, result: 'partial success' }));
    expect((await request(gw.url).get('/console/queue').set(basic(ADMIN_KEY))).text).toContain('sync.filesystem.full');
  });
});

describe('a gateway without CONSOLE_ENABLED', () => {
  let gw: ConsoleGateway;
  beforeAll(async () => {
    gw = await startConsoleGateway('sqlite', { env: { CONSOLE_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('serves no console, to anyone', async () => {
    for (const page of ['/console/sources', '/console/api/sources', '/console/assets/htmx.min.js']) {
      const res = await request(gw.url).get(page).set(basic(ADMIN_KEY));
      expect({ page, status: res.status }).toEqual({ page, status: 404 });
    }
  });
});
