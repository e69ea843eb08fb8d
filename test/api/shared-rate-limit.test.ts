import net from 'node:net';
import type { Redis } from 'ioredis';
import { connectRedis, redisReady } from '../../src/lib/connect-redis';
import { STORE_RETRY_MS } from '../../src/http/rate-limits/store-health';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { AUTH, TEST_KEYS, startTestGateway, type GatewayOptions, type TestGateway } from '../helpers/test-gateway';
import { connectTestRedis, describeWithRedis, dropKeys, testRedisUrl, uniqueKeyPrefix } from '../helpers/test-redis';

/**
 * `REDIS_URL`: gateways that share a Redis share one budget per client, and their
 * `X-RateLimit-*` headers count the shared budget. When Redis cannot be reached the gateway fails
 * open: each process counts on its own (the limit still holds per process), says so once in the
 * log (never with the URL's password) and in its metrics, and shares again once Redis is back.
 */

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const ROTATED = { Authorization: `Bearer ${TEST_KEYS[1]}` };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describeWithRedis('rate limits shared through Redis (REDIS_URL)', () => {
  let prefix: string;
  let gateways: TestGateway[];
  let clients: Redis[];
  let proxy: TcpProxy | undefined;

  beforeEach(() => {
    prefix = uniqueKeyPrefix();
    gateways = [];
    clients = [];
    proxy = undefined;
  });
  afterEach(async () => {
    for (const gw of gateways) await gw.close();
    for (const client of clients) client.disconnect();
    await proxy?.close();
    await dropKeys(prefix);
  });

  async function gatewayOn(client: Redis, options: GatewayOptions): Promise<TestGateway> {
    clients.push(client);
    const gw = await startTestGateway('sqlite', { metricsToken: METRICS_TOKEN, ...options, rateLimitStore: { kind: 'redis', client, keyPrefix: prefix } });
    gateways.push(gw);
    return gw;
  }

  const scrape = async (gw: TestGateway): Promise<string> =>
    (await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const warnings = (gw: TestGateway, text: string): string[] => gw.logLines.filter((line) => line.includes(text));

  it('holds one budget per client across two gateways, and the headers count the shared budget', async () => {
    const limits = { rateLimitRequests: 10, rateLimitWindowSeconds: 60 };
    const a = await gatewayOn(await connectTestRedis(), limits);
    const b = await gatewayOn(await connectTestRedis(), limits);
    const seen: Array<{ status: number; remaining: string | undefined }> = [];
    for (let i = 0; i < 14; i += 1) {
      const res = await (i % 2 === 0 ? a : b).get('/v1/files?$top=1', AUTH);
      seen.push({ status: res.status, remaining: res.headers['x-ratelimit-remaining'] });
      expect(res.headers['x-ratelimit-limit']).toBe('10');
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
      if (res.status === 429) {
        expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
    expect(seen).toEqual([
      ...Array.from({ length: 10 }, (_, i) => ({ status: 200, remaining: String(9 - i) })),
      ...Array.from({ length: 4 }, () => ({ status: 429, remaining: '0' })),
    ]);
    // Another client (the rotated key) has a budget of its own, on either gateway.
    const other = await b.get('/v1/files?$top=1', ROTATED);
    expect([other.status, other.headers['x-ratelimit-remaining']]).toEqual([200, '9']);
  });

  it('admits no more than the limit in all when both gateways are hit at once', async () => {
    const limits = { rateLimitRequests: 25, rateLimitWindowSeconds: 60 };
    const a = await gatewayOn(await connectTestRedis(), limits);
    const b = await gatewayOn(await connectTestRedis(), limits);
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? a : b).get('/v1/files?$top=1', AUTH)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(25);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(55);
    const remaining = answers.filter((r) => r.status === 200).map((r) => Number(r.headers['x-ratelimit-remaining']));
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('holds one failed-authentication budget per address across two gateways, which valid keys never touch', async () => {
    const limits = { authFailureLimit: 6 };
    const a = await gatewayOn(await connectTestRedis(), limits);
    const b = await gatewayOn(await connectTestRedis(), limits);
    const wrong = { Authorization: 'Bearer wrong-key-0123456789abcdef0123456789' };
    const statuses: number[] = [];
    for (let i = 0; i < 9; i += 1) statuses.push((await (i % 2 === 0 ? a : b).get('/v1/files?$top=1', wrong)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429, 429]);
    for (const gw of [a, b]) expect((await gw.get('/v1/files?$top=1', AUTH)).status).toBe(200);
  });

  it('counts failed authentications on its own when Redis cannot be reached (fails open, still limited)', async () => {
    const gw = await gatewayOn(connectRedis(`redis://127.0.0.1:${await closedPort()}`), { authFailureLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await gw.get('/v1/files?$top=1', { Authorization: 'Bearer wrong' })).status);
    expect(statuses).toEqual([401, 401, 429, 429]);
    expect((await gw.get('/v1/files?$top=1', AUTH)).status).toBe(200);
  });

  it('fails open when Redis cannot be reached: each process counts on its own, with a metric and one log line without the password', async () => {
    const url = `redis://:hunter2-redis-password@127.0.0.1:${await closedPort()}`;
    const gw = await gatewayOn(connectRedis(url), { rateLimitRequests: 3, rateLimitWindowSeconds: 60 });
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await gw.get('/v1/files?$top=1', AUTH));
    expect(answers.map((r) => [r.status, r.headers['x-ratelimit-remaining']])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
      [429, '0'],
    ]);
    const metrics = await scrape(gw);
    expect(metrics).toMatch(/content_gateway_rate_limit_store_up\{store="redis"\} 0/);
    expect(Number(/content_gateway_rate_limit_fallback_total\{store="redis"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(5);
    expect(warnings(gw, 'rate-limit store unreachable')).toHaveLength(1);
    expect(JSON.parse(warnings(gw, 'rate-limit store unreachable')[0] as string)).toMatchObject({ level: 40, store: 'redis' });
    expect(gw.logLines.join('\n')).not.toContain('hunter2-redis-password');
  });

  it('counts locally while Redis is cut off mid-run, and shares the count again once it is back', async () => {
    const target = new URL(testRedisUrl as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const viaProxy = `redis://127.0.0.1:${proxy.port}`;
    const limits = { rateLimitRequests: 6, rateLimitWindowSeconds: 60 };
    const a = await gatewayOn(await connectTestRedis(viaProxy), limits);
    const b = await gatewayOn(await connectTestRedis(viaProxy), limits);
    const remaining = async (gw: TestGateway): Promise<[number, string | undefined]> => {
      const res = await gw.get('/v1/files?$top=1', AUTH);
      return [res.status, res.headers['x-ratelimit-remaining']];
    };
    expect(await remaining(a)).toEqual([200, '5']);
    expect(await remaining(b)).toEqual([200, '4']);

    await proxy.cut();
    // Each gateway now counts from zero on its own: still served, still limited per process.
    expect(await remaining(a)).toEqual([200, '5']);
    expect(await remaining(a)).toEqual([200, '4']);
    expect(await remaining(b)).toEqual([200, '5']);
    expect(warnings(a, 'rate-limit store unreachable')).toHaveLength(1);
    expect(await scrape(a)).toMatch(/content_gateway_rate_limit_store_up\{store="redis"\} 0/);

    await proxy.restore();
    expect(await redisReady(clients[0] as Redis, 5_000)).toBe(true);
    expect(await redisReady(clients[1] as Redis, 5_000)).toBe(true);
    await sleep(STORE_RETRY_MS + 100);
    // The shared count resumes where Redis left it (two spent before the cut).
    expect(await remaining(b)).toEqual([200, '3']);
    expect(await remaining(a)).toEqual([200, '2']);
    expect(warnings(a, 'rate-limit store answers again')).toHaveLength(1);
    expect(await scrape(a)).toMatch(/content_gateway_rate_limit_store_up\{store="redis"\} 1/);
  });
});
