import { crawlGateway } from '../../src/conformance/crawl/crawl-gateway';
import { CrawlRecorder } from '../../src/conformance/crawl/crawl-recorder';
import { EffectiveAccess, accessInputFromCrawl } from '../../src/conformance/access/effective-access';
import { GatewayClient } from '../../src/conformance/crawl/gateway-client';
import { RateLimitPacer } from '../../src/conformance/crawl/rate-limit-pacer';
import type { CrawlRecord } from '../../src/conformance/crawl/crawl-record';
import { seedDemo } from '../../src/demo/seed-demo';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';
import { finalMessage, startSimulator, type RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';

/**
 * The simulator pointed at the demo gateway: it ingests every file over HTTP, and every demo
 * user's answers cite only files that user may see by the gateway's own access lists (resolved
 * independently, from the conformance crawler's record).
 */
describe('the platform simulator on the demo gateway', () => {
  let gw: TestGateway;
  let p: RunningSimulator;
  let crawl: CrawlRecord;
  let access: EffectiveAccess;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
    await seedDemo(gw.database.db, gw.blobs);
    p = await startSimulator({ gateway: { baseUrl: gw.url, auth: { kind: 'api-key', key: TEST_KEYS[0] } } });
    const recorder = new CrawlRecorder();
    const client = new GatewayClient({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      authForm: 'bearer',
      concurrency: 4,
      timeoutMs: 10_000,
      recorder,
      pacer: new RateLimitPacer(),
    });
    crawl = await crawlGateway(client, { concurrency: 4, skipDownloads: true });
    client.close();
    access = new EffectiveAccess(accessInputFromCrawl(crawl));
  });
  afterAll(async () => {
    await p?.close();
    await gw?.close();
  });

  it('ingests every active file of the demo, text of every kind extracted', async () => {
    const report = (await p.admin('/ingest', { method: 'POST' })).body;
    const active = crawl.files.filter((f) => f.listing.status !== 'deleted').map((f) => f.listing.id);
    expect(report).toMatchObject({ status: 'succeeded', failures: [], files: active.length });
    expect([...report.added].sort()).toEqual([...active].sort());
    const files = p.sim.context.corpus().snapshot.files;
    for (const kind of ['.pdf', '.docx', '.pptx', '.txt', '.html']) {
      const f = [...files.values()].find((x) => x.id.endsWith(kind));
      expect([kind, (f?.text.length ?? 0) > 50]).toEqual([kind, true]);
    }
    expect(report.downloaded.length).toBe(crawl.files.filter((f) => f.listing.mimeType !== 'text/html').length);
  });

  const QUESTIONS = [
    'expense policy receipts',
    'salary bands',
    'board meeting notes',
    'kubernetes upgrade',
    'incident response on-call',
    'holiday calendar',
    'parental leave',
    'office move proposal',
    'welcome to northwind café',
    'all hands',
    'code review',
  ];

  it('cites, for every demo user, only files that user may see by the gateway access lists', async () => {
    const byUrl = new Map(crawl.files.map((f) => [String(f.listing.externalUrl), f.listing.id]));
    let cited = 0;
    for (const user of crawl.users) {
      const email = String(user.email);
      for (const question of QUESTIONS) {
        const answer = finalMessage((await p.ask(email, question)).messages);
        for (const c of answer.citations) {
          const fileId = byUrl.get(c.url);
          expect([email, question, fileId, fileId !== undefined && access.canSee(email, fileId)]).toEqual([email, question, fileId, true]);
          cited++;
        }
      }
    }
    expect(cited).toBeGreaterThan(20);
  });

  it('shows one user a file it refuses another: HR sees the salary bands, engineering does not, the inactive user sees nothing', async () => {
    const salary = crawl.files.find((f) => f.listing.id.includes('salary-bands'))?.listing;
    expect(salary).toBeDefined();
    const seers = crawl.users.filter((u) => access.canSee(String(u.email), salary!.id)).map((u) => String(u.email));
    const refused = crawl.users.filter((u) => !access.canSee(String(u.email), salary!.id)).map((u) => String(u.email));
    expect(seers.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const email of seers)
      expect(finalMessage((await p.ask(email, 'salary bands 2025')).messages).citations.map((c: { url: string }) => c.url)).toContain(salary!.externalUrl);
    for (const email of refused)
      expect(finalMessage((await p.ask(email, 'salary bands 2025')).messages).citations.map((c: { url: string }) => c.url)).not.toContain(salary!.externalUrl);
    const gus = crawl.users.find((u) => u.state === 'Inactive');
    expect(gus).toBeDefined();
    expect(finalMessage((await p.ask(String(gus!.email), 'expense policy')).messages).citations).toEqual([]);
  });
});
