import crypto from 'node:crypto';
import PgBoss from 'pg-boss';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const pgUrl = process.env.TEST_DATABASE_URL;

/**
 * The sync job queue's state on /metrics: a gateway on Postgres gauges the jobs `sync-worker`s
 * share, by queue and state, read from the queue's schema when scraped. The jobs are put there
 * with pg-boss itself, as the workers do: waiting, running, failed (its one try used) and, from
 * that failure, one in the dead-letter queue.
 */
(pgUrl ? describe : describe.skip)('GET /metrics: the sync job queue (postgres)', () => {
  const schema = `q_${crypto.randomBytes(6).toString('hex')}`;
  let gw: TestGateway;
  let boss: PgBoss;
  const scrape = async (): Promise<string> => (await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();

  beforeAll(async () => {
    gw = await startTestGateway('postgres', { metricsToken: METRICS_TOKEN, syncQueueSchema: schema });
    boss = new PgBoss({ connectionString: pgUrl, schema, supervise: false, schedule: false });
    await boss.start();
  });
  afterAll(async () => {
    await boss.stop({ graceful: false });
    await gw.database.db.raw('drop schema if exists ?? cascade', [schema]);
    await gw.close();
  });

  it('has no figures before a worker has created the queue, then counts its jobs by queue and state', async () => {
    expect(await scrape()).not.toMatch(/^content_gateway_sync_jobs\{/m);
    const queue = 'sync.wiki.incremental';
    await boss.createQueue('sync.dead', { name: 'sync.dead' });
    await boss.createQueue(queue, { name: queue, retryLimit: 0, deadLetter: 'sync.dead' });
    for (let i = 0; i < 3; i += 1) await boss.send(queue, { adapter: 'wiki', source: 'wiki', kind: 'incremental' });
    await boss.fetch(queue);
    const [failing] = await boss.fetch(queue);
    await boss.fail(queue, failing!.id, { message: 'the wiki refused' });
    const text = await scrape();
    expect(text).toMatch(/# TYPE content_gateway_sync_jobs gauge/);
    expect(text).toMatch(/content_gateway_sync_jobs\{queue="sync.wiki.incremental",state="waiting"\} 1\n/);
    expect(text).toMatch(/content_gateway_sync_jobs\{queue="sync.wiki.incremental",state="running"\} 1\n/);
    expect(text).toMatch(/content_gateway_sync_jobs\{queue="sync.wiki.incremental",state="failed"\} 1\n/);
    expect(text).toMatch(/content_gateway_sync_jobs\{queue="sync.dead",state="dead"\} 1\n/);
  });
});

if (!pgUrl) {
  describe.skip('GET /metrics: the sync job queue (TEST_DATABASE_URL is not set: skipped)', () => {
    it('gauges the jobs on the Postgres queue', () => undefined);
  });
}
