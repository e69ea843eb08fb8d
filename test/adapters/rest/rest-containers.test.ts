import { EVERYONE, type AdapterContext, type SyncEvent } from '../../../src/adapters/adapter';
import { parseRestManifest, RestAdapter } from '../../../src/adapters/rest';
import { captureLogger } from '../../helpers/capture-logger';
import { SECRETS, startFakeRestApi, type FakeRestApi } from './fake-rest-api';

const BASE = `version: 1
identities: email
requester:
  url_base: \${env:API_URL}
  authenticator: { type: basic, username: svc, password: { env: API_PASSWORD } }
  error_handler: { max_retries: 0 }
`;

const MANIFEST = `${BASE}streams:
  containers:
    requester: { path: /spaces }
    record_selector: spaces
    map: { id: id, name: name }
    access:
      public: open
      request:
        requester: { path: '/spaces/{record.id}/members' }
        record_selector: members
        map: { type: "'user'", id: email }
  documents:
    requester: { path: /docs }
    record_selector: docs
    map:
      id: id
      name: title
      url: "'https://docs.example.com/' & id"
      created_at: created
      parent: "space ? { 'id': space, 'name': 'Space ' & space }"
      metadata: tags
    content: { html: { template: '<h1>{{record.title}}</h1><p>{{record.summary}}</p>{{{record.summary}}}' } }
    access:
      inherit: space
      public: "id = 'd4'"
`;

describe('rest adapter: access inherited from containers, identities by email', () => {
  let api: FakeRestApi;
  beforeEach(async () => {
    api = await startFakeRestApi();
  });
  afterEach(() => api.close());

  async function events(text: string): Promise<SyncEvent[]> {
    const adapter = new RestAdapter({
      name: 'spaces',
      loaded: parseRestManifest(text, 'test.yaml'),
      env: { API_URL: api.url, API_PASSWORD: SECRETS.password },
    });
    const ctx: AdapterContext = { logger: captureLogger('warn').logger, signal: new AbortController().signal, now: () => new Date() };
    const out: SyncEvent[] = [];
    for await (const event of adapter.full(ctx)) out.push(event);
    return out;
  }

  it("gives each document its container's access, everyone for an open one, and fails those whose container's access could not be read", async () => {
    const all = await events(MANIFEST);
    const files = Object.fromEntries(all.flatMap((e) => (e.type === 'file' ? [[e.file.nativeId, e.file]] : [])));
    // Members named by email in any case are keyed by the lower-cased email.
    expect(files.d1?.access).toEqual([
      { type: 'USER', nativeId: 'ana@example.com' },
      { type: 'USER', nativeId: 'bo@example.com' },
    ]);
    expect(files.d2?.access).toEqual([EVERYONE]);
    expect(files.d4?.access).toEqual([EVERYONE]);
    // d3's space could not say who its members are: d3 is a failure, never served with an empty or guessed list.
    expect(files.d3).toBeUndefined();
    const failure = all.find((e) => e.type === 'failure');
    expect(failure).toMatchObject({ type: 'failure', kind: 'file', nativeId: 'd3' });
    expect(failure?.type === 'failure' && failure.error.message).toMatch(/access of container "s-ops" could not be read: Remote answered 503/);
  });

  it('maps timestamps, parent and metadata, and escapes fields in the HTML template', async () => {
    const files = (await events(MANIFEST)).flatMap((e) => (e.type === 'file' ? [e.file] : []));
    const d1 = files.find((f) => f.nativeId === 'd1');
    expect(d1).toMatchObject({
      name: 'Design',
      externalUrl: 'https://docs.example.com/d1',
      mimeType: 'text/html',
      createdAt: '2026-01-02T03:04:05Z',
      parent: { nativeId: 's-eng', name: 'Space s-eng' },
      customAttributes: { team: 'eng' },
      // {{x}} is HTML-escaped, {{{x}}} inserted as it is.
      content: { kind: 'html', html: '<h1>Design</h1><p>Fish &amp; &lt;chips&gt;</p>Fish & <chips>' },
    });
    expect(files.find((f) => f.nativeId === 'd4')).not.toHaveProperty('parent');
  });

  it('retries on a retry rule, and fails on an error hidden inside a 200 answer', async () => {
    const docs = (path: string, selector: string, handler: string) => `${BASE}streams:
  documents:
    requester: { path: ${path}, error_handler: ${handler} }
    record_selector: ${selector}
    map: { id: id, name: title, url: "'https://x.example/' & id" }
    content: { html: { template: 'x' } }
    access: { public: 'true' }
`;
    const retried = await events(docs('/flaky', 'data.items', '{ max_retries: 3, response_filters: [{ http_codes: [409], action: retry }] }'));
    expect(retried.filter((e) => e.type === 'file')).toHaveLength(2);
    expect(api.flaky).toBe(3);
    await expect(
      events(docs('/wrapped', 'items', "{ response_filters: [{ predicate: 'ok = false', action: fail, error_message: 'The API refused' }] }")),
    ).rejects.toThrow('The API refused (/wrapped)');
  });
});
