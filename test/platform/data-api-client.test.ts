import { DataApiClient } from '../../src/platform/data-api-client';
import { DATA_API_REGIONS, DATA_API_REGION_NAMES, dataApiBaseUrl } from '../../src/platform/data-api-regions';
import { PlatformAuthError, PlatformConfigError, PlatformGoneError, PlatformRequestError, PlatformUnavailableError } from '../../src/platform/platform-error';
import { captureLogger } from '../helpers/capture-logger';
import { simulatorWithRecords } from '@content-gateway/kit/test/mocks/platform/data-api-setup';
import type { RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';
import { recordingFetch, simulatedSleep } from './platform-fixtures';

let p: RunningSimulator;
const logger = captureLogger().logger;

beforeAll(async () => {
  // The tenant lives in the EU region: the clients below talk to its server.
  p = await simulatorWithRecords('eu');
});
afterAll(() => p.close());
afterEach(async () => {
  p.sim.setHostility({ rateLimitPerMinute: 600, faultRate: 0 });
  await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'data.plugin-resources.count': 'stable', 'data.plugin-resources.list': 'stable' } } });
});

const regionBase = (region: string) => `${p.origin}/regions/${region}/export/v1/records`;
const keyClient = (extra: Partial<ConstructorParameters<typeof DataApiClient>[0]> = {}) =>
  new DataApiClient({ baseUrl: regionBase('eu'), auth: { kind: 'api-key', key: p.sim.credentials.dataApiKey }, logger, ...extra });
const collect = async <T>(it: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describe('Data API client: where it talks', () => {
  it("a region by name is the seed's regional server; an unknown one names the known ones; a base URL is taken as given", () => {
    expect(DATA_API_REGION_NAMES).toEqual(['us', 'eu', 'ca', 'gov', 'jp', 'uk', 'us-prod4', 'us-prod3']);
    expect(dataApiBaseUrl({ region: 'EU' })).toBe(DATA_API_REGIONS.eu);
    expect(dataApiBaseUrl({})).toBe(DATA_API_REGIONS.us);
    for (const base of Object.values(DATA_API_REGIONS)) expect(base).toMatch(/^https:\/\/[^/]+\/export\/v1\/records$/);
    expect(() => dataApiBaseUrl({ region: 'mars' })).toThrow(PlatformConfigError);
    expect(() => dataApiBaseUrl({ region: 'mars' })).toThrow(/us, eu, ca, gov, jp, uk, us-prod4, us-prod3/);
    expect(() => dataApiBaseUrl({ region: 'eu', baseUrl: 'https://x' })).toThrow(/not both/);
    expect(dataApiBaseUrl({ baseUrl: 'http://127.0.0.1:9/export/v1/records/' })).toBe('http://127.0.0.1:9/export/v1/records');
    expect(() => dataApiBaseUrl({ baseUrl: 'ftp://x' })).toThrow(PlatformConfigError);
  });
});

describe('Data API client: listing', () => {
  it('follows @odata.nextLink verbatim to the end, with $filter/$select/$orderby/$top on the first request only', async () => {
    const rec = recordingFetch();
    const client = keyClient({ fetch: rec.fetch });
    const pages = await collect(
      client.pages<Record<string, unknown>>('plugin-resources', {
        filter: 'cited eq true',
        select: ['id', 'cited', 'created_time'],
        orderby: 'created_time desc',
        top: 7,
      }),
    );
    const items = pages.flatMap((pg) => pg.items);
    const expected = p.sim.context.pluginResources
      .filter((r) => r.cited)
      .sort((a, b) => (a.created_time < b.created_time ? 1 : a.created_time > b.created_time ? -1 : 0))
      .slice(0, 7);
    expect(items.map((r) => r.id).sort()).toEqual(expected.map((r) => r.id).sort());
    expect(items.every((r) => Object.keys(r).sort().join() === 'cited,created_time,id')).toBe(true);
    const times = items.map((r) => String(r.created_time));
    expect([...times].sort().reverse()).toEqual(times);
    expect(pages.length).toBe(3); // pages of 3
    const first = new URL(rec.sent[0]!.url);
    expect([
      first.pathname,
      first.searchParams.get('$filter'),
      first.searchParams.get('$select'),
      first.searchParams.get('$orderby'),
      first.searchParams.get('$top'),
    ]).toEqual(['/regions/eu/export/v1/records/plugin-resources', 'cited eq true', 'id,cited,created_time', 'created_time desc', '7']);
    // Each follow-up is exactly the previous page's nextLink.
    expect(rec.sent.slice(1).map((s) => s.url)).toEqual(pages.slice(0, -1).map((pg) => new URL(pg.nextLink!).href));
    expect(rec.sent.every((s) => !new URL(s.url).searchParams.has('$count'))).toBe(true);
    expect(client.requestCount).toBe(3);
  });

  it('a nextLink chain that loops stops with a typed response error naming the link without its query', async () => {
    const again = `${regionBase('eu')}/plugin-resources?$skiptoken=same`;
    const fetch: typeof globalThis.fetch = async () =>
      new Response(JSON.stringify({ value: [{ id: 'r' }], '@odata.nextLink': again }), { status: 200, headers: { 'content-type': 'application/json' } });
    const pages = keyClient({ fetch }).pages('plugin-resources');
    await expect(collect(pages)).rejects.toMatchObject({
      name: 'PlatformResponseError',
      message: 'Data API pagination stopped: the @odata.nextLink chain loops',
      url: `${regionBase('eu')}/plugin-resources`,
    });
  });

  it("a bad filter is a typed request error carrying the platform's code; bad credentials an auth error (the Data API answers 403)", async () => {
    await expect(collect(keyClient().list('plugin-resources', { filter: 'nonsense eq eq' }))).rejects.toMatchObject({
      name: 'PlatformRequestError',
      status: 400,
      code: 'BAD_REQUEST',
    });
    const wrong = new DataApiClient({ baseUrl: regionBase('us'), auth: { kind: 'api-key', key: 'wrong' }, logger });
    await expect(wrong.count()).rejects.toBeInstanceOf(PlatformAuthError);
    // The right key at another region's server: the tenant is not there.
    await expect(keyClient({ baseUrl: regionBase('us') }).count()).rejects.toBeInstanceOf(PlatformAuthError);
    await expect(keyClient({ baseUrl: `${p.origin}/regions/mars/export/v1/records` }).count()).rejects.toMatchObject({
      name: 'PlatformNotFoundError',
      status: 404,
    });
  });
});

describe('Data API client: counting through /plugin-resources/$count only', () => {
  it('count(filter) is the number of matching records, asked of the count endpoint, never with $count=true', async () => {
    const rec = recordingFetch();
    const client = keyClient({ fetch: rec.fetch, auth: { kind: 'api-key', key: p.sim.credentials.dataApiKey, form: 'bare' } });
    const all = p.sim.context.pluginResources;
    const fileId = all[0]!.detail.external_resource_id;
    expect(await client.count()).toBe(all.length);
    expect(await client.count(`detail/external_resource_id eq '${fileId}'`)).toBe(all.filter((r) => r.detail.external_resource_id === fileId).length);
    expect(await client.count(`cited eq true and detail/external_resource_id eq '${fileId}'`)).toBe(
      all.filter((r) => r.cited && r.detail.external_resource_id === fileId).length,
    );
    expect(rec.sent.map((s) => new URL(s.url).pathname)).toEqual(Array(3).fill('/regions/eu/export/v1/records/plugin-resources/$count'));
    expect(rec.sent.every((s) => !new URL(s.url).searchParams.has('$count'))).toBe(true);
  });

  it('a removed endpoint is a typed Gone error', async () => {
    await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'data.plugin-resources.count': 'removed' } } });
    await expect(keyClient().count()).rejects.toBeInstanceOf(PlatformGoneError);
  });
});

describe('Data API client: OAuth client credentials', () => {
  const oauth = () => ({
    kind: 'oauth' as const,
    tokenUrl: `${p.origin}/oauth/v1/token`,
    clientId: p.sim.credentials.clients.data.clientId,
    clientSecret: p.sim.credentials.clients.data.clientSecret,
  });

  it('one token serves many requests until shortly before it expires, then a fresh one is fetched before any refusal', async () => {
    const rec = recordingFetch();
    const client = keyClient({ auth: oauth(), fetch: rec.fetch, now: () => p.sim.clock.now() });
    for (let i = 0; i < 4; i++) await client.count();
    expect(rec.sent.filter((s) => s.url.endsWith('/oauth/v1/token'))).toHaveLength(1);
    await p.sim.advanceClock(3_590_000); // 10 s before expiry: inside the refresh margin
    expect(await client.count()).toBe(p.sim.context.pluginResources.length);
    expect(rec.sent.filter((s) => s.url.endsWith('/oauth/v1/token'))).toHaveLength(2);
    expect(rec.sent.filter((s) => s.url.includes('$count'))).toHaveLength(5); // no request was refused
  });

  it('a token the platform refuses (expired by its clock) is dropped and the request sent once more with a new one', async () => {
    const rec = recordingFetch();
    const client = keyClient({ auth: oauth(), fetch: rec.fetch, now: () => 0 }); // a client clock that never moves
    await client.count();
    await p.sim.advanceClock(3_700_000);
    expect(await client.count()).toBe(p.sim.context.pluginResources.length);
    expect(rec.sent.map((s) => (s.url.endsWith('/token') ? 'token' : 'count'))).toEqual(['token', 'count', 'count', 'token', 'count']);
  });

  it('wrong client credentials are an auth error from the token endpoint', async () => {
    await expect(keyClient({ auth: { ...oauth(), clientSecret: 'nope' } }).count()).rejects.toMatchObject({
      name: 'PlatformAuthError',
      status: 401,
      code: 'invalid_client',
    });
  });
});

describe('Data API client: hostility', () => {
  it("429 waits out Retry-After (on the platform's clock) and every count still arrives", async () => {
    p.sim.setHostility({ rateLimitPerMinute: { data: 3 } });
    const clock = simulatedSleep(p);
    const client = keyClient({ sleep: clock.sleep });
    const counts: number[] = [];
    for (let i = 0; i < 8; i++) counts.push(await client.count());
    expect(new Set(counts)).toEqual(new Set([p.sim.context.pluginResources.length]));
    expect(clock.waits.length).toBeGreaterThanOrEqual(2);
    expect(clock.waits.every((ms) => ms >= 1000)).toBe(true);
    expect(client.requestCount).toBe(8 + clock.waits.length);
  });

  it('a 429 without Retry-After (the Data API documents none) waits a minute, as the official pipeline does, and every count still arrives', async () => {
    p.sim.setHostility({ rateLimitPerMinute: { data: 3 } });
    const clock = simulatedSleep(p);
    // A proxy in front of the platform that drops the header: the answer is a bare 429.
    const bare: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (res.status !== 429) return res;
      const headers = new Headers(res.headers);
      headers.delete('retry-after');
      return new Response(await res.text(), { status: 429, headers });
    };
    const client = keyClient({ fetch: bare, sleep: clock.sleep, random: () => 0.5 });
    const counts: number[] = [];
    for (let i = 0; i < 8; i++) counts.push(await client.count());
    expect(new Set(counts)).toEqual(new Set([p.sim.context.pluginResources.length]));
    expect(clock.waits.length).toBeGreaterThanOrEqual(2);
    expect(clock.waits).toEqual(clock.waits.map(() => 60_000));
  });

  it('5xx back off and succeed; faults that never end are a typed unavailable error after the retries', async () => {
    const clean = await collect(keyClient().list('plugin-resources', { select: ['id'] }));
    p.sim.setHostility({ faultRate: 0.4, seed: 'client-test' });
    const clock = simulatedSleep(p);
    const client = keyClient({ sleep: clock.sleep, random: () => 0.5 });
    expect(await collect(client.list('plugin-resources', { select: ['id'] }))).toEqual(clean);
    expect(clock.waits.length).toBeGreaterThan(0);
    p.sim.setHostility({ faultRate: 1 });
    const doomed = keyClient({ sleep: async () => undefined });
    await expect(doomed.count()).rejects.toBeInstanceOf(PlatformUnavailableError);
    expect(doomed.requestCount).toBe(6);
  });

  it('pacing spreads request starts: at 120 a minute, 4 requests take at least a second', async () => {
    const rec = recordingFetch();
    const client = keyClient({ fetch: rec.fetch, requestsPerMinute: 120 });
    for (let i = 0; i < 4; i++) await client.count();
    expect(rec.sent[3]!.at - rec.sent[0]!.at).toBeGreaterThanOrEqual(900);
  });
});

it('a refused filter is never retried', async () => {
  const rec = recordingFetch();
  await expect(keyClient({ fetch: rec.fetch }).count("cited eq 'x' or")).rejects.toBeInstanceOf(PlatformRequestError);
  expect(rec.sent).toHaveLength(1);
});
