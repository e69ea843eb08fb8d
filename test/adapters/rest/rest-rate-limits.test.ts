import type { AdapterContext } from '../../../src/adapters/adapter';
import { parseRestManifest, RestAdapter, RestManifestError } from '../../../src/adapters/rest';
import { captureLogger } from '../../helpers/capture-logger';
import { RATE_LIMITED_ITEMS, startRateLimitedApi, type RateLimitedApi, type RateLimitStyle } from './rate-limited-api';

function manifest(path: string, rateLimit = ''): string {
  return `version: 1
concurrency: 1
requester:
  url_base: \${env:API_URL}
  ${rateLimit}
streams:
  documents:
    requester: { path: ${path} }
    paginator: { type: offset, page_size: 1, stop: { empty_page: true } }
    record_selector: items
    map: { id: id, name: title, url: "'https://example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access: { public: 'true' }
`;
}

let lastRequests = 0;

async function run(api: RateLimitedApi, text: string): Promise<string[]> {
  const adapter = new RestAdapter({ name: 'limited', loaded: parseRestManifest(text, 'test.yaml'), env: { API_URL: api.url } });
  const ctx: AdapterContext = { logger: captureLogger('warn').logger, signal: new AbortController().signal, now: () => new Date() };
  const ids: string[] = [];
  for await (const event of adapter.full(ctx)) if (event.type === 'file') ids.push(event.file.nativeId);
  lastRequests = adapter.lastRun!.requests;
  return ids;
}

describe('rest adapter: rate limits', () => {
  let api: RateLimitedApi | undefined;
  afterEach(() => api?.close());

  it.each<RateLimitStyle>(['x-ratelimit', 'ratelimit-fields', 'ratelimit-structured'])(
    'waits for the window to reset once %s headers say the budget is spent, so no request is refused',
    async (style) => {
      api = await startRateLimitedApi(style);
      expect(await run(api, manifest('/items'))).toEqual(RATE_LIMITED_ITEMS);
      expect([api.refused, api.served]).toEqual([0, 7]);
    },
  );

  it("waits outside a request's own timeout: a reset longer than timeout_ms costs no attempt", async () => {
    api = await startRateLimitedApi('x-ratelimit');
    expect(await run(api, manifest('/items').replace('  url_base:', '  timeout_ms: 300\n  url_base:'))).toEqual(RATE_LIMITED_ITEMS);
    expect([api.refused, api.served, lastRequests]).toEqual([0, 7, 7]);
  });

  it('refuses at load a requester timeout_ms longer than a day (the timer would abort every attempt after 1 ms)', () => {
    expect(() => parseRestManifest(manifest('/items', 'timeout_ms: 3000000000'), 'test.yaml')).toThrow(/timeout_ms/);
    expect(() => parseRestManifest(manifest('/items', 'timeout_ms: 86400000'), 'test.yaml')).not.toThrow();
  });

  it('refuses at load a max_wait_ms longer than a day (a timer cannot hold 2^31 ms: it would wait 1 ms, not pace at all)', () => {
    expect(() => parseRestManifest(manifest('/items', 'rate_limit: { max_wait_ms: 3000000000 }'), 'test.yaml')).toThrow(RestManifestError);
    expect(() => parseRestManifest(manifest('/items', 'rate_limit: { max_wait_ms: 3000000000 }'), 'test.yaml')).toThrow(/max_wait_ms/);
    expect(() => parseRestManifest(manifest('/items', 'rate_limit: { max_wait_ms: 86400000 }'), 'test.yaml')).not.toThrow();
  });

  it('is refused and retries after Retry-After when headers are not respected (the behaviour pacing avoids)', async () => {
    api = await startRateLimitedApi('x-ratelimit');
    expect(await run(api, manifest('/items', 'rate_limit: { respect_headers: false }'))).toEqual(RATE_LIMITED_ITEMS);
    expect(api.refused).toBeGreaterThan(0);
  });

  it('waits until the HTTP date a 429 gives in Retry-After, asking once more only then', async () => {
    api = await startRateLimitedApi('none');
    expect(
      await run(api, manifest('/dated').replace('paginator: { type: offset, page_size: 1, stop: { empty_page: true } }', 'paginator: { type: none }')),
    ).toEqual(RATE_LIMITED_ITEMS);
    expect([api.refused, api.served]).toEqual([1, 1]);
  });
});
