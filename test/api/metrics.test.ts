import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { htmlFile } from '../helpers/staging-fixtures';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('GET /metrics', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite', { metricsToken: METRICS_TOKEN });
    await gw.writer.putFiles([htmlFile('test:a'), htmlFile('test:b', { status: 'deleted' })].map((file) => ({ file, permissions: [] })));
    await gw.database
      .db('sync_runs')
      .insert({ source: 'test', mode: 'full', status: 'succeeded', started_at: '2026-01-01T00:00:00.000Z', counts: JSON.stringify({ added: 2, failed: 0 }) });
  });
  afterAll(() => gw.close());

  const scrape = (token?: string) => fetch(`${gw.url}/metrics`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});

  it('is refused without the metrics token', async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape('wrong-token-0123456789')).status).toBe(401);
    expect((await scrape(AUTH.Authorization.slice(7))).status).toBe(401); // an API key is not the metrics token
  });

  it('exposes requests by route and status, latency histograms, staging sizes and sync outcomes', async () => {
    await gw.get('/v1/files', AUTH);
    await gw.get('/v1/files/test%3Anope', AUTH);
    await gw.get('/v1/files');
    const res = await scrape(METRICS_TOKEN);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/content_gateway_http_requests_total\{route="listFiles",method="GET",status="200"\} 1/);
    expect(text).toMatch(/content_gateway_http_requests_total\{route="getFile",method="GET",status="404"\} 1/);
    expect(text).toMatch(/content_gateway_http_requests_total\{route="listFiles",method="GET",status="401"\} 1/);
    expect(text).toMatch(/content_gateway_http_request_duration_seconds_bucket\{le="0.1",route="listFiles"\}/);
    expect(text).toMatch(/content_gateway_staged_rows\{table="files",status="active"\} 1/);
    expect(text).toMatch(/content_gateway_staged_rows\{table="files",status="deleted"\} 1/);
    expect(text).toMatch(/content_gateway_sync_runs\{source="test",mode="full",status="succeeded"\} 1/);
    expect(text).toMatch(/content_gateway_sync_last_run_items\{source="test",outcome="added"\} 2/);
    expect(text).toMatch(/content_gateway_process_resident_memory_bytes/);
  });

  it('is not served at all without a configured token', async () => {
    const off = await startTestGateway('sqlite');
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
