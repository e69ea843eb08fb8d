import { runConformance } from '../../src/conformance/run-conformance';
import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { accessInputFromCrawl, EffectiveAccess } from '../../src/conformance/access/effective-access';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';
import { EMAIL, ODD_FILE_ID, PLATFORM_GROUP, stageConformanceFixture } from './own-gateway-fixture';

const notPassing = (r: ConformanceReport) =>
  r.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message} ${JSON.stringify(f.evidence)}`);

describe('conformance against our own gateway (SQLite, real HTTP on loopback)', () => {
  let gw: TestGateway;
  let report: ConformanceReport;

  beforeAll(async () => {
    // Several conformance runs within a minute, each with 24 wrong or missing keys on purpose: no failure budget.
    gw = await startTestGateway('sqlite', { pageSizeDefault: 10, authFailureLimit: 0 });
    await stageConformanceFixture(gw);
    report = await runConformance({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      profile: 'strict',
      expectations: [
        { file: 'test:platform-1', canSee: [EMAIL.ana, EMAIL.eli], cannotSee: [EMAIL.chen, EMAIL.bo, EMAIL.fay] },
        { file: 'test:salaries.docx', canSee: [EMAIL.hal], cannotSee: [EMAIL.gus, EMAIL.ana] },
        { file: 'test:holidays.txt', canSee: [EMAIL.u01, EMAIL.gus], cannotSee: [EMAIL.bo] },
      ],
    });
  });
  afterAll(() => gw.close());

  it('passes with zero failures and zero warnings', () => {
    expect(notPassing(report)).toEqual([]);
    expect(report.summary).toMatchObject({ ok: true, checks: { fail: 0, warn: 0 } });
  });

  it("passes the platform profile too, with ids sent raw as the platform's tools send them", async () => {
    const raw = await runConformance({ baseUrl: gw.url, key: TEST_KEYS[0], profile: 'platform', rawIds: true, secondCrawl: false });
    expect(notPassing(raw)).toEqual([]);
    expect(raw.options).toMatchObject({ profile: 'platform', rawIds: true });
    // Every file, access list, download and member list was read through its raw path.
    expect(raw.crawl.files.length).toBe(report.crawl.files.length);
    const slashed = raw.crawl.files.filter((f) => f.listing.id.includes('/') && f.listing.status !== 'deleted');
    for (const f of raw.crawl.files.filter((x) => x.listing.status !== 'deleted')) {
      expect(f.detail?.status).toBe(200);
      expect(f.permissions?.status).toBe(200);
      if (f.download) expect(f.download.status).toBe(200);
    }
    for (const g of raw.crawl.groups) expect(g.members?.status).toBe(200);
    const odd = raw.crawl.files.find((f) => f.listing.id === ODD_FILE_ID);
    expect(slashed.map((f) => f.listing.id)).toEqual([ODD_FILE_ID]);
    expect(odd?.detail).toMatchObject({
      status: 200,
      id: ODD_FILE_ID,
      url: expect.stringContaining('/v1/files/test:hr%20&%20execs/2025%20plan%20(%C3%9Cn%C3%AFcode)%20+%2050%25.html'),
    });
    expect(raw.crawl.groups.find((g) => g.id === PLATFORM_GROUP)?.members).toMatchObject({
      status: 200,
      url: expect.stringContaining('/v1/groups/test:teams/platform%20eng/members'),
    });
  });

  it('crawled like the platform: every page, file, binary, access list, group, member and user', () => {
    const { crawl, stats } = report;
    expect(crawl.files).toHaveLength(31);
    expect(crawl.listings.find((l) => l.collection === 'files')?.pages).toBe(4);
    expect(crawl.files.filter((f) => f.detail?.status === 200)).toHaveLength(30); // the tombstone is not read
    expect(
      crawl.files
        .filter((f) => f.download?.status === 200)
        .map((f) => f.listing.id)
        .sort(),
    ).toEqual(['test:board.pptx', 'test:chen-review.pdf', 'test:crowd-list.pdf', 'test:handbook.pdf', 'test:holidays.txt', 'test:salaries.docx'].sort());
    expect(crawl.files.find((f) => f.listing.id === 'test:crowd-list.pdf')?.permissions).toMatchObject({ pages: 2, status: 200 });
    expect(crawl.groups.find((g) => g.id === 'test:crowd')?.members).toMatchObject({ pages: 2 });
    expect(crawl.users).toHaveLength(20);
    expect(report.recorded.oddTop?.listing.pages).toBe(5);
    expect(stats.maxInFlight).toBeLessThanOrEqual(20);
    expect(stats.latencyMs.p50).toBeGreaterThan(0);
    expect(report.checks.map((c) => c.check)).toEqual(expect.arrayContaining(['access.expectations', 'robustness.tampered-skiptoken', 'auth.header-forms']));
  });

  it('resolves effective access: nested groups, the wildcard, single-user files; the inactive user does not count', () => {
    const access = new EffectiveAccess(accessInputFromCrawl(report.crawl));
    const emails = (id: string) => access.whoCanSee(id)?.users.map((u) => u.email);
    expect(emails('test:platform-1')).toEqual([EMAIL.ana, EMAIL.eli]);
    expect(emails('test:eng-1')).toEqual([EMAIL.ana, EMAIL.chen, EMAIL.dee, EMAIL.eli]);
    expect(access.whoCanSee('test:eng-1')?.inactive.map((u) => u.email)).toEqual([EMAIL.bo]);
    expect(emails('test:handbook.pdf')).toEqual([EMAIL.ana, EMAIL.chen, EMAIL.dee, EMAIL.eli, EMAIL.fay, EMAIL.gus, EMAIL.hal]);
    expect(emails('test:note-for-hal')).toEqual([EMAIL.hal]);
    expect(access.whoCanSee('test:kb-01')?.everyone).toBe(true);
    expect(emails('test:kb-01')).toHaveLength(19); // 20 users, one inactive
    const ana = access.whatCanSee(EMAIL.ana);
    expect(ana?.files.map((f) => f.id)).toEqual(
      expect.arrayContaining(['test:note-for-ana', 'test:platform-1', 'test:eng-1', 'test:handbook.pdf', 'test:kb-01']),
    );
    expect(ana?.files.map((f) => f.id)).not.toEqual(expect.arrayContaining(['test:salaries.docx']));
    expect(ana?.files.map((f) => f.id)).not.toContain('test:old-article');
    expect(access.whatCanSee(EMAIL.bo)).toMatchObject({ active: false, files: [] });
  });

  it('holds the expectations file, and fails on an expectation the gateway breaks', async () => {
    expect(report.findings.find((f) => f.check === 'access.expectations')).toMatchObject({ severity: 'pass', message: 'all 11 expectations hold' });
    const wrong = await runConformance({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      profile: 'strict',
      secondCrawl: false,
      oddTop: 0,
      probes: false,
      expectations: [{ file: 'test:salaries.docx', canSee: [EMAIL.ana, EMAIL.bo], cannotSee: [EMAIL.hal] }],
    });
    const failures = wrong.findings.filter((f) => f.check === 'access.expectations');
    expect(failures.map((f) => [f.severity, f.evidence.field, f.evidence.value])).toEqual([
      ['fail', 'can_see', EMAIL.ana],
      ['fail', 'can_see', EMAIL.bo],
      ['fail', 'cannot_see', EMAIL.hal],
    ]);
    expect(failures[1]?.message).toMatch(/inactive/);
    expect(failures[2]?.message).toMatch(/GROUP test:hr/);
    expect(wrong.summary.ok).toBe(false);
  });

  it('with rate limiting on, finds the X-RateLimit-* headers coherent and moving', async () => {
    const limited = await startTestGateway('sqlite', { pageSizeDefault: 10, rateLimitRequests: 1000 });
    try {
      await stageConformanceFixture(limited);
      const r = await runConformance({ baseUrl: limited.url, key: TEST_KEYS[0], profile: 'strict' });
      expect(notPassing(r)).toEqual([]);
      expect(r.recorded.rateLimits.length).toBeGreaterThan(100);
      expect(r.findings.find((f) => f.check === 'rate-limit.coherent')?.message).toMatch(/^headers on \d+ responses are coherent$/);
      expect(r.findings.find((f) => f.check === 'rate-limit.not-static')?.message).toMatch(/^remaining moved across/);
    } finally {
      await limited.close();
    }
  });
});
