import { quoteLikePlatformClient } from '../../src/conformance/crawl/raw-id-path';
import { runConformance } from '../../src/conformance/run-conformance';
import { seedDemo } from '../../src/demo/seed-demo';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

/**
 * The demo as the platform's own tools reach it: ids such as `demo:company/expense-policy.html`
 * pasted into paths raw. Every file, access list, download and member list must be read, and the
 * platform profile must find nothing to warn about but the draft nobody may see; the strict profile
 * holds too.
 */
describe('the demo, crawled with raw ids', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Two conformance runs within a minute, each with 24 wrong or missing keys on purpose: no failure budget.
    gw = await startTestGateway('sqlite', { authFailureLimit: 0 });
    await seedDemo(gw.database.db, gw.blobs);
  });
  afterAll(() => gw.close());

  it.each(['platform', 'strict'] as const)('passes the %s profile with every id-bearing request sent raw', async (profile) => {
    const report = await runConformance({ baseUrl: gw.url, key: TEST_KEYS[0], profile, rawIds: true, secondCrawl: false, oddTop: 0 });
    // The one draft the demo shares with nobody is the only thing worth a word.
    expect(report.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message}`)).toEqual([
      'warn permissions.non-empty: File demo:drafts/office-move-proposal.html: the access list is empty, so nobody can see the file.',
    ]);
    const active = report.crawl.files.filter((f) => f.listing.status !== 'deleted');
    expect(active.length).toBeGreaterThan(10);
    const slashed = active.filter((f) => f.listing.id.includes('/'));
    expect(slashed.length).toBe(active.length); // every demo id is `demo:<folder>/<file>`
    for (const f of active) {
      expect(f.detail).toMatchObject({ status: 200, id: f.listing.id });
      expect(f.detail?.url).toContain(`/v1/files/${quoteLikePlatformClient(f.listing.id)}`); // `:` and `/` as they are, only non-ASCII escaped
      expect(f.permissions?.status).toBe(200);
      if (f.download) expect(f.download.status).toBe(200);
    }
    expect(active.filter((f) => f.download?.status === 200).length).toBeGreaterThanOrEqual(4);
    expect(report.crawl.groups.length).toBeGreaterThan(2);
    for (const g of report.crawl.groups)
      expect(g.members).toMatchObject({ status: 200, url: expect.stringContaining(`/v1/groups/${quoteLikePlatformClient(g.id)}/members`) });
  });
});
