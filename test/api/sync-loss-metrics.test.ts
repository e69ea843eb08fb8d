import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** What operators watch for a lossy change feed: the changes polling found that no event announced, summed over runs. */
describe.each(databaseKinds)('GET /metrics: changes no event announced (%s)', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(kind, { metricsToken: METRICS_TOKEN });
    const run = (source: string, mode: string, unannounced: number) => ({
      source,
      mode,
      status: 'succeeded',
      started_at: '2026-01-01T00:00:00.000Z',
      counts: JSON.stringify({ changed: unannounced }),
      unannounced,
    });
    await gw.database.db('sync_runs').insert([run('wm', 'full', 0), run('wm', 'incremental', 3), run('wm', 'incremental', 4), run('fs', 'incremental', 0)]);
  });
  afterAll(() => gw.close());

  it('counts them per source over every recorded run', async () => {
    const res = await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await res.text();
    expect(text).toMatch(/# TYPE content_gateway_sync_unannounced_changes_total counter/);
    expect(text).toMatch(/content_gateway_sync_unannounced_changes_total\{source="wm"\} 7\n/);
    expect(text).toMatch(/content_gateway_sync_unannounced_changes_total\{source="fs"\} 0\n/);
  });
});
