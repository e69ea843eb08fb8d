import { manualClock, startMock, type RunningMock } from './mock-harness';

const calm = { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0, latencyMs: { min: 0, max: 0 }, faultRate: 0 };

describe('rate limits: per-minute quota answering 429 with Retry-After', () => {
  const clock = manualClock();
  let m: RunningMock;
  beforeAll(async () => {
    m = await startMock({ seed: 'rate', now: clock.now, hostility: { ...calm, rateLimitPerMinute: 5 } });
  });
  afterAll(() => m.close());

  it('the sixth request in a minute gets 429 with Retry-After in seconds; the next minute is fine', async () => {
    for (let i = 0; i < 5; i++) expect((await m.api('/users/me')).status).toBe(200);
    clock.advance(20_000);
    const limited = await m.api('/users/me');
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0].message).toBe("You've made too many requests and hit a rate limit. Please retry after the given amount of time.");
    expect(limited.headers.get('retry-after')).toBe('40');
    clock.advance(40_000);
    expect((await m.api('/users/me')).status).toBe(200);
  });

  it('the quota is per token', async () => {
    m.mock.context.limiter.reset();
    for (let i = 0; i < 5; i++) await m.api('/users/me');
    expect((await m.api('/users/me')).status).toBe(429);
    const other = m.mock.tokenFor(
      m.mock.model.indexes.list(
        m.mock.model.indexes.workspaceMembershipsByWorkspace.get(m.mock.organization.organization),
        m.mock.model.indexes.workspaceMemberships,
      )[0]?.user as string,
    );
    expect((await m.api('/users/me', { token: other })).status).toBe(200);
  });

  it('private paths are not limited', async () => {
    for (let i = 0; i < 10; i++) expect((await m.call('/_admin/state')).status).toBe(200);
  });
});

describe('rate limits: concurrent requests (reads and writes in independent pools)', () => {
  let m: RunningMock;
  beforeAll(async () => {
    m = await startMock({ seed: 'concurrency', hostility: { ...calm, maxConcurrentReads: 2, maxConcurrentWrites: 1, latencyMs: { min: 250, max: 250 } } });
  });
  afterAll(() => m.close());

  it('beyond the in-flight limit, requests get 429 with Retry-After; writes have their own pool', async () => {
    const task = m.mock.model.indexes.tasksByWorkspace.get(m.mock.organization.organization)?.[0] as string;
    const reads = Array.from({ length: 5 }, () => m.api('/users/me'));
    await new Promise((r) => setTimeout(r, 50));
    const write = m.api(`/tasks/${task}`, { method: 'PUT', body: { data: { notes: 'concurrent' } } });
    const statuses = (await Promise.all(reads)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    expect((await write).status).toBe(200);
    const limited = await Promise.all(Array.from({ length: 3 }, () => m.api('/users/me')));
    const rejected = limited.find((r) => r.status === 429);
    expect(rejected?.headers.get('retry-after')).toBe('1');
    // Once in-flight requests finish, the slots are free again.
    expect((await m.api('/users/me')).status).toBe(200);
  });
});

describe('injected latency and 5xx faults', () => {
  let m: RunningMock;
  beforeAll(async () => {
    m = await startMock({ seed: 'faults', hostility: { ...calm, faultRate: 0.3, seed: 'fixed' } });
  });
  afterAll(() => m.close());

  it('answers about the configured share of requests with 500 or 503 (500 with a phrase, 503 with Retry-After)', async () => {
    const results = [];
    for (let i = 0; i < 300; i++) results.push(await m.api('/users/me'));
    const faults = results.filter((r) => r.status >= 500);
    expect(faults.length / results.length).toBeGreaterThan(0.22);
    expect(faults.length / results.length).toBeLessThan(0.38);
    expect(new Set(faults.map((r) => r.status))).toEqual(new Set([500, 503]));
    const fiveHundred = faults.find((r) => r.status === 500);
    expect(fiveHundred?.body.errors[0]).toEqual({ message: 'Server Error', help: expect.any(String), phrase: expect.stringMatching(/^\S+ \S+ \S+ \S+ \S+$/) });
    expect(faults.find((r) => r.status === 503)?.headers.get('retry-after')).toBe('1');
    expect(results.filter((r) => r.status === 200)).toHaveLength(300 - faults.length);
  });

  it('is reproducible: the same hostility seed gives the same faults', async () => {
    const run = async (): Promise<number[]> => {
      m.mock.setHostility({ seed: 'again' });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await m.api('/users/me')).status);
      return out;
    };
    expect(await run()).toEqual(await run());
  });

  it('can be turned off at run time through /_admin/hostility; private paths never fault', async () => {
    m.mock.setHostility({ faultRate: 1 });
    expect((await m.api('/users/me')).status).toBeGreaterThanOrEqual(500);
    expect((await m.call('/_admin/state')).status).toBe(200);
    const patched = await m.call('/_admin/hostility', { method: 'PATCH', body: { faultRate: 0 } });
    expect(patched.body.data.faultRate).toBe(0);
    for (let i = 0; i < 20; i++) expect((await m.api('/users/me')).status).toBe(200);
  });

  it('adds the configured latency', async () => {
    m.mock.setHostility({ latencyMs: { min: 120, max: 150 } });
    const started = Date.now();
    await m.api('/users/me');
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    m.mock.setHostility({ latencyMs: { min: 0, max: 0 } });
  });
});

describe('attachment download_urls expire after a short time', () => {
  const clock = manualClock();
  let m: RunningMock;
  let attachment: string;
  beforeAll(async () => {
    m = await startMock({ seed: 'downloads', now: clock.now, hostility: { ...calm, downloadUrlTtlMs: 120_000 } });
    attachment = [...m.mock.model.indexes.attachments.values()].find((a) => a.kind === 'pdf')?.gid as string;
  });
  afterAll(() => m.close());

  it('a fresh URL downloads without the API token; after 2 minutes it is 403 "Request has expired"; a re-read mints a new one', async () => {
    const url: string = (await m.api(`/attachments/${attachment}`)).body.data.download_url;
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/pdf');
    clock.advance(121_000);
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('<Code>AccessDenied</Code><Message>Request has expired</Message>');
    const fresh: string = (await m.api(`/attachments/${attachment}`)).body.data.download_url;
    expect(fresh).not.toBe(url);
    expect((await fetch(fresh)).status).toBe(200);
  });

  it('a tampered URL is 403 SignatureDoesNotMatch', async () => {
    const url: string = (await m.api(`/attachments/${attachment}`)).body.data.download_url;
    const tampered = url.replace(/expires=(\d+)/, (_s, n: string) => `expires=${Number(n) + 1_000_000}`);
    const res = await fetch(tampered);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('SignatureDoesNotMatch');
  });

  it('links to other hosts have no download_url', async () => {
    const link = [...m.mock.model.indexes.attachments.values()].find((a) => a.kind === null);
    const res = await m.api(`/attachments/${link?.gid}`);
    expect(res.body.data).toMatchObject({ download_url: null, size: null, host: link?.host, view_url: expect.stringMatching(/^https:\/\//) });
  });
});

describe('Events rule 4: reading events has higher rate limits than reading the resources (a budget of its own)', () => {
  const clock = manualClock();
  let m: RunningMock;
  beforeAll(async () => {
    m = await startMock({ seed: 'events-rate', size: 'tiny', now: clock.now, hostility: { ...calm, rateLimitPerMinute: 5, eventsRateLimitPerMinute: 12 } });
  });
  afterAll(() => m.close());

  it('events keep being read when the resource budget is spent, up to their own higher limit, with Retry-After', async () => {
    const workspace = m.mock.organization.organization;
    for (let i = 0; i < 5; i++) expect((await m.api('/users/me')).status).toBe(200);
    expect((await m.api('/users/me')).status).toBe(429);
    const events = () => m.api(`/workspaces/${workspace}/events`);
    for (let i = 0; i < 12; i++) expect((await events()).status).not.toBe(429);
    const limited = await events();
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '60']);
    clock.advance(60_000);
    expect((await events()).status).not.toBe(429);
    expect((await m.api('/users/me')).status).toBe(200);
  });

  it('the events budget defaults to more than the resources one', async () => {
    const state = (await m.call('/_admin/state')).body.data.hostility;
    expect(state.eventsRateLimitPerMinute).toBeGreaterThan(state.rateLimitPerMinute);
    const { DEFAULT_HOSTILITY } = await import('../../../src/mocks/work-management/hostility');
    expect(DEFAULT_HOSTILITY.eventsRateLimitPerMinute).toBeGreaterThan(DEFAULT_HOSTILITY.rateLimitPerMinute);
  });
});
