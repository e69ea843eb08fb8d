import type { AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { parseRestManifest, RestAdapter } from '../../../src/adapters/rest';
import { captureLogger } from '../../helpers/capture-logger';
import { ITEMS, SECRETS, startFakeRestApi, type FakeRestApi } from './fake-rest-api';

const ENV = { API_URL: '', API_PASSWORD: SECRETS.password, CLIENT_SECRET: SECRETS.clientSecret, API_KEY: SECRETS.apiKey, REFRESH_TOKEN: SECRETS.refreshToken };

/** A manifest whose documents are the fake's items, listed by `listing` (YAML lines under documents:) and read with `auth`. */
function manifest(listing: string, auth = '{ type: basic, username: svc, password: "${env:API_PASSWORD}" }'): string {
  return `version: 1
requester:
  url_base: \${env:API_URL}
  authenticator: ${auth}
streams:
  documents:
${listing
  .trim()
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
    map: { id: id, name: title, url: "'https://example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access: { public: 'true' }
`;
}

describe('rest adapter: paging and authentication against a REST API on loopback', () => {
  let api: FakeRestApi;
  beforeEach(async () => {
    api = await startFakeRestApi();
  });
  afterEach(() => api.close());

  async function run(text: string): Promise<{ ids: string[]; events: SyncEvent[]; requests: number; logs: string }> {
    const { logger, lines } = captureLogger('debug');
    const adapter = new RestAdapter({ name: 'fake', loaded: parseRestManifest(text, 'test.yaml'), env: { ...ENV, API_URL: api.url } });
    const ctx: AdapterContext = { logger, signal: new AbortController().signal, now: () => new Date() };
    const events: SyncEvent[] = [];
    for await (const event of adapter.full(ctx)) events.push(event);
    const ids = events.flatMap((e) => (e.type === 'file' ? [e.file.nativeId] : []));
    return { ids, events, requests: adapter.lastRun?.requests ?? 0, logs: JSON.stringify(lines()) };
  }
  const ALL = ITEMS.map((i) => i.id);

  it.each([
    ['offset/limit, to an empty page', 'requester: { path: /offset }\npaginator: { type: offset, page_size: 2 }\nrecord_selector: data.items', 4],
    [
      'page number with a has-more flag',
      'requester: { path: /pages }\npaginator: { type: page_number, page_size: 2, stop: { has_more_path: has_more } }\nrecord_selector: results',
      3,
    ],
    [
      'page number to the total',
      'requester: { path: /pages }\npaginator: { type: page_number, page_size: 2, stop: { total_path: total } }\nrecord_selector: results',
      3,
    ],
    ['Link headers', 'requester: { path: /linked }\npaginator: { type: link_header }', 3],
    [
      'a cursor in a header',
      'requester: { path: /headers }\npaginator: { type: header_cursor, header: X-Next-Cursor, cursor_param: after }\nrecord_selector: items',
      3,
    ],
  ])('reads every item through %s, one request a page', async (_, listing, pages) => {
    const { ids, requests } = await run(manifest(listing));
    expect(ids).toEqual(ALL);
    expect(requests).toBe(pages);
  });

  it('POSTs a request body with the references in it filled in', async () => {
    const listing = 'requester: { path: /search, http_method: POST, request_body: { filter: { key: { env: API_KEY } }, page: 1 } }\nrecord_selector: hits';
    expect((await run(manifest(listing))).ids).toEqual(ALL);
  });

  it('refuses a cursor that comes back, and an offset the API ignores, rather than loop or stop short', async () => {
    await expect(
      run(manifest('requester: { path: /looping }\npaginator: { type: cursor, cursor_path: next, cursor_param: c }\nrecord_selector: items')),
    ).rejects.toThrow('streams.documents: page 2 points at a page already read; refusing to loop');
    await expect(
      run(
        manifest('requester: { path: /offset, request_parameters: { mode: stuck } }\npaginator: { type: offset, page_size: 2 }\nrecord_selector: data.items'),
      ),
    ).rejects.toThrow('streams.documents: page 2 repeats page 1');
  });

  it('refuses a page whose record selector finds nothing, rather than take it as empty', async () => {
    await expect(run(manifest('requester: { path: /offset }\npaginator: { type: offset, page_size: 2 }\nrecord_selector: data.rows'))).rejects.toThrow(
      'the answer has no "data.rows" (record_selector)',
    );
  });

  it('logs in once for a session, and again once after a 401, sending the token it got', async () => {
    const session = '{ type: session, login: { path: /login, request_body: { user: svc, password: { env: API_PASSWORD } }, token_path: session.token } }';
    const listing = 'requester: { path: /offset }\npaginator: { type: offset, page_size: 2 }\nrecord_selector: data.items';
    expect((await run(manifest(listing, session))).ids).toEqual(ALL);
    expect(api.logins).toBe(1);
    api.expire('tok-2');
    const again = await run(manifest(listing, session));
    expect(again.ids).toEqual(ALL);
    // The second run's login (tok-2) expired on its first use: one more login, the page asked again.
    expect(api.logins).toBe(3);
    expect(api.requests.filter((r) => r.startsWith('POST /login'))).toHaveLength(3);
  });

  it('caches an OAuth client-credentials token across requests, refreshes it once on 401, and logs no secret', async () => {
    const oauth = `{ type: oauth2_client_credentials, token_url: "\${env:API_URL}/oauth/token", client_id: gateway, client_secret: "\${env:CLIENT_SECRET}" }`;
    api.expire('tok-1');
    const result = await run(manifest('requester: { path: /offset }\npaginator: { type: offset, page_size: 1 }\nrecord_selector: data.items', oauth));
    expect(result.ids).toEqual(ALL);
    // tok-1 was refused on its first use: one new grant (tok-2) served the six pages that followed.
    expect(api.logins).toBe(2);
    expect(api.requests.filter((r) => r.startsWith('GET /offset'))).toHaveLength(7);
    expect(result.logs).not.toContain(SECRETS.clientSecret);
    expect(result.logs).not.toContain('tok-1');
  });

  it('grants tokens from a refresh token, keeping the rotated one for the next grant', async () => {
    const oauth = '{ type: oauth2_refresh_token, token_url: "${env:API_URL}/oauth/token", client_id: gateway, refresh_token: { env: REFRESH_TOKEN } }';
    api.expire('tok-1');
    const result = await run(manifest('requester: { path: /offset }\npaginator: { type: offset, page_size: 2 }\nrecord_selector: data.items', oauth));
    expect(result.ids).toEqual(ALL);
    // tok-1 was refused: the second grant succeeded only with the refresh token the first one returned.
    expect(api.logins).toBe(2);
    expect(result.logs).not.toContain(SECRETS.refreshToken);
  });

  it('sends an API key in the query, and fails the run on a wrong one without naming it', async () => {
    const key = '{ type: api_key, api_key: "${env:API_KEY}", inject: { in: query, name: api_key } }';
    expect((await run(manifest('requester: { path: /linked }\npaginator: { type: link_header }', key))).ids).toEqual(ALL);
    const wrong = key.replace('API_KEY', 'WRONG_KEY');
    await expect(run(manifest('requester: { path: /linked }', wrong))).rejects.toThrow('refers to the environment variable WRONG_KEY, which is not set');
    const failing = run(manifest('requester: { path: /linked }', key.replace('API_KEY', 'API_PASSWORD')));
    await expect(failing).rejects.toThrow(/401/);
    await expect(failing).rejects.not.toThrow(SECRETS.password);
  });
});
