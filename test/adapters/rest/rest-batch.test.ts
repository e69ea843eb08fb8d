import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { parseRestManifest, RestAdapter } from '../../../src/adapters/rest';
import { captureLogger } from '../../helpers/capture-logger';

/**
 * `requester.batch`, through the front door: a fake API on loopback with its own batch dialect
 * (`POST /bulk {calls: [{get: path}]}` answering `{answers: [{code, payload}]}`), documents whose
 * access is a child request per document. Batched, the run yields the same events in fewer HTTP
 * calls; a result that fails fails that document's access read exactly as its own request would
 * (the document is a failure, never served with an empty or a guessed list); a batch call that
 * fails fails every read in it.
 */
const DOCS = Array.from({ length: 12 }, (_, i) => ({ id: `d${i}`, title: `Doc ${i}` }));
const GRANTS: Record<string, string[]> = Object.fromEntries(
  DOCS.map((d, i) => [d.id, [`u${i % 3}@example.com`, ...(i % 4 === 0 ? ['boss@example.com'] : [])]]),
);

interface FakeApi {
  url: string;
  calls: string[];
  /** Grants of these documents answer 500 inside a batch (and alone). */
  failing: Set<string>;
  /** The bulk endpoint answers 400. */
  bulkDown: boolean;
  close(): Promise<void>;
}

function answer(path: string, failing: Set<string>): { code: number; payload: unknown } {
  const url = new URL(path, 'http://api');
  if (url.pathname === '/docs') return { code: 200, payload: { docs: DOCS } };
  const grants = /^\/docs\/([^/]+)\/grants$/.exec(url.pathname)?.[1];
  // A plausible body under an error status: only the status tells the read failed.
  if (grants && failing.has(grants)) return { code: 500, payload: { grants: [], error: 'grants store down' } };
  if (grants && GRANTS[grants]) return { code: 200, payload: { grants: GRANTS[grants].map((email) => ({ email })) } };
  return { code: 404, payload: { error: 'no such thing' } };
}

async function startFakeApi(): Promise<FakeApi> {
  const api = { calls: [] as string[], failing: new Set<string>(), bulkDown: false };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      api.calls.push(`${req.method} ${req.url}`);
      const send = (code: number, payload: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      if (req.method === 'POST' && req.url === '/bulk') {
        if (api.bulkDown) return send(400, { error: 'bulk refused' });
        const calls = (JSON.parse(raw) as { calls: Array<{ get: string }> }).calls;
        return send(200, { answers: calls.map((c) => answer(c.get, api.failing)) });
      }
      const one = answer(req.url ?? '/', api.failing);
      send(one.code, one.payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(api, { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
}

const manifest = (batched: boolean) => `version: 1
identities: email
concurrency: 6
requester:
  url_base: \${env:API_URL}
  error_handler: { max_retries: 0 }
  batch:
    path: /bulk
    max_actions: 4
    action: "{'get': relative_path}"
    body: "{'calls': actions[]}"
    results: answers
    status: code
    result_body: payload
streams:
  documents:
    requester: { path: /docs }
    record_selector: docs
    map: { id: id, name: title, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<h1>{{record.title}}</h1>' } }
    access:
      request:
        requester: { path: '/docs/{record.id}/grants', batch: ${batched} }
        record_selector: grants
        map: { type: "'user'", id: email }
`;

describe('rest adapter: requester.batch', () => {
  let api: FakeApi;
  beforeEach(async () => {
    api = await startFakeApi();
  });
  afterEach(() => api.close());

  async function run(batched: boolean): Promise<SyncEvent[]> {
    const adapter = new RestAdapter({ name: 'bulk', loaded: parseRestManifest(manifest(batched), 'bulk.yaml'), env: { API_URL: api.url } });
    const ctx: AdapterContext = { logger: captureLogger('error').logger, signal: new AbortController().signal, now: () => new Date() };
    const out: SyncEvent[] = [];
    for await (const event of adapter.full(ctx)) out.push(event);
    return out;
  }
  const accessOf = (events: SyncEvent[]) =>
    Object.fromEntries(
      events.flatMap((e) => (e.type === 'file' ? [[e.file.nativeId, e.file.access.map((a) => ('nativeId' in a ? a.nativeId : a.type)).sort()]] : [])),
    );
  const failed = (events: SyncEvent[]) => events.flatMap((e) => (e.type === 'failure' ? [e.nativeId] : [])).sort();

  it('yields the same files and access lists as one request a read, in fewer calls of at most max_actions reads', async () => {
    const alone = await run(false);
    const aloneCalls = api.calls.length;
    api.calls.length = 0;
    const batched = await run(true);
    expect(accessOf(batched)).toEqual(accessOf(alone));
    expect(Object.keys(accessOf(batched))).toHaveLength(DOCS.length);
    expect(aloneCalls).toBe(1 + DOCS.length);
    const bulkCalls = api.calls.filter((c) => c === 'POST /bulk');
    expect(api.calls.filter((c) => c.startsWith('GET /docs/'))).toEqual([]);
    expect(bulkCalls.length).toBeGreaterThanOrEqual(Math.ceil(DOCS.length / 4));
    expect(api.calls.length).toBeLessThan(aloneCalls / 2);
  });

  it("a failed result fails that document's access read: the document is a failure, the others keep their lists", async () => {
    api.failing.add('d5');
    const events = await run(true);
    expect(failed(events)).toEqual(['d5']);
    expect(accessOf(events).d5).toBeUndefined();
    expect(Object.keys(accessOf(events))).toHaveLength(DOCS.length - 1);
  });

  it('a batch call that fails fails every read in it: no document is served with a guessed list', async () => {
    api.bulkDown = true;
    const events = await run(true);
    expect(accessOf(events)).toEqual({});
    expect(failed(events)).toEqual(DOCS.map((d) => d.id).sort());
  });

  it('the manifest names a missing batch field by its place', () => {
    const broken = manifest(true).replace('    result_body: payload\n', '');
    expect(() => parseRestManifest(broken, 'bulk.yaml')).toThrow(/requester\.batch.*result_body/);
    const noEndpoint = manifest(true).replace(/ {2}batch:\n( {4}.*\n)+/, '');
    expect(() => parseRestManifest(noEndpoint, 'bulk.yaml')).toThrow(
      /streams\.documents\.access\.request\.requester\.batch \(line \d+\): needs requester\.batch/,
    );
  });
});
