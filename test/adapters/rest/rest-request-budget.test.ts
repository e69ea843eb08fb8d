import { Redis } from 'ioredis';
import type { AdapterContext } from '../../../src/adapters/adapter';
import { parseRestManifest, RestAdapter } from '../../../src/adapters/rest';
import { captureLogger } from '../../helpers/capture-logger';
import { describeWithRedis, dropKeys, testRedisUrl, uniqueKeyPrefix } from '../../helpers/test-redis';
import { RATE_LIMITED_ITEMS, startRateLimitedApi, type RateLimitedApi } from './rate-limited-api';

/** Seven requests a run (six pages and the empty one), a budget of ten per three seconds. */
const MANIFEST = `version: 1
name: limited
concurrency: 1
requester:
  url_base: \${env:API_URL}
  rate_limit: { budget: { requests: 10, per_seconds: 3 } }
streams:
  documents:
    requester: { path: /items }
    paginator: { type: offset, page_size: 1 }
    record_selector: items
    map: { id: id, name: title, url: "'https://example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access: { public: 'true' }
`;

/** Two runs of the same source at once, as two replicas would sync it: each with its own adapter (and, given Redis, its own connection). */
async function twoReplicas(
  api: RateLimitedApi,
  env: Record<string, string>,
  manifest = MANIFEST,
): Promise<Array<{ ids: string[]; requests: number; budgetWaited: number }>> {
  const replica = async () => {
    const adapter = new RestAdapter({ name: 'limited', loaded: parseRestManifest(manifest, 'test.yaml'), env: { API_URL: api.url, ...env } });
    const ctx: AdapterContext = { logger: captureLogger('warn').logger, signal: new AbortController().signal, now: () => new Date() };
    const ids: string[] = [];
    for await (const event of adapter.full(ctx)) if (event.type === 'file') ids.push(event.file.nativeId);
    return { ids, requests: adapter.lastRun!.requests, budgetWaited: adapter.lastRun!.gate.budgetWaited };
  };
  return Promise.all([replica(), replica()]);
}

describe('rest adapter: a per-source request budget', () => {
  let api: RateLimitedApi;
  beforeEach(async () => {
    api = await startRateLimitedApi('none', 1000);
  });
  afterEach(() => api.close());

  it('is counted in this process without Redis: two runs of the source at once share it, and past it one waits for the window', async () => {
    const runs = await twoReplicas(api, {});
    expect(runs.map((r) => [r.ids, r.requests])).toEqual([
      [RATE_LIMITED_ITEMS, 7],
      [RATE_LIMITED_ITEMS, 7],
    ]);
    expect(runs[0]!.budgetWaited + runs[1]!.budgetWaited).toBeGreaterThan(0);
    expect(api.refused).toBe(0);
  });

  it('leaves a source without a budget unpaced', async () => {
    const runs = await twoReplicas(api, {}, MANIFEST.replace('  rate_limit: { budget: { requests: 10, per_seconds: 3 } }\n', ''));
    expect(runs.map((r) => [r.requests, r.budgetWaited])).toEqual([
      [7, 0],
      [7, 0],
    ]);
  });
});

describeWithRedis('rest adapter: a per-source request budget shared through Redis', () => {
  const prefix = uniqueKeyPrefix();
  let api: RateLimitedApi;
  beforeEach(async () => {
    api = await startRateLimitedApi('none', 1000);
  });
  afterEach(() => api.close());
  afterAll(() => dropKeys(prefix));

  it('makes two replicas share one budget: together past it, one of them waits for the window', async () => {
    const runs = await twoReplicas(api, { REDIS_URL: testRedisUrl!, REDIS_KEY_PREFIX: prefix });
    expect(runs.map((r) => [r.ids, r.requests])).toEqual([
      [RATE_LIMITED_ITEMS, 7],
      [RATE_LIMITED_ITEMS, 7],
    ]);
    // 14 requests against 10 per window: the requests past the tenth waited for the next window, counted in Redis.
    expect(runs[0]!.budgetWaited + runs[1]!.budgetWaited).toBeGreaterThan(0);
    const admin = new Redis(testRedisUrl!);
    try {
      expect(await admin.keys(`${prefix}*`)).toEqual([`${prefix}rest-budget:limited`]);
    } finally {
      admin.disconnect();
    }
  });
});
