import type { AdapterContext, SyncEvent } from '../../../src/adapters/adapter';
import { parseRestManifest, RestAdapter, RestManifestError } from '../../../src/adapters/rest';
import { captureLogger } from '../../helpers/capture-logger';
import { SECRETS, startFakeRestApi, type FakeRestApi } from './fake-rest-api';

/** Never ends: JSONata runs a tail call in a loop, so the stack never grows. */
const ENDLESS = '($f := function($n) { $f($n + 1) }; $f(0))';
/** Grows the stack on every call. */
const DEEP = '($f := function($n) { 1 + $f($n + 1) }; $f(0))';

/** The fake's four documents; `access` (YAML) decides who reads them, `limits` bounds the expressions. */
function manifest(access: string, limits = ''): string {
  return `version: 1
identities: email
${limits}
requester:
  url_base: \${env:API_URL}
  authenticator: { type: basic, username: svc, password: { env: API_PASSWORD } }
streams:
  users:
    requester: { path: /people }
    paginator: { type: cursor, cursor_path: next_cursor, cursor_param: cursor }
    record_selector: people
    map: { id: id, email: "id = 'p2' ? ${DEEP.replace(/"/g, '\\"')} : email", active: "status = 'active'" }
  documents:
    requester: { path: /docs }
    record_selector: docs
    map: { id: id, name: title, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access: ${access}
`;
}

describe('rest adapter: JSONata expressions that run too long or too deep', () => {
  let api: FakeRestApi;
  beforeEach(async () => {
    api = await startFakeRestApi();
  });
  afterEach(() => api.close());

  async function events(text: string): Promise<SyncEvent[]> {
    const adapter = new RestAdapter({ name: 'docs', loaded: parseRestManifest(text, 'test.yaml'), env: { API_URL: api.url, API_PASSWORD: SECRETS.password } });
    const ctx: AdapterContext = { logger: captureLogger('warn').logger, signal: new AbortController().signal, now: () => new Date() };
    const out: SyncEvent[] = [];
    for await (const event of adapter.full(ctx)) out.push(event);
    return out;
  }
  const failures = (out: SyncEvent[]) => out.flatMap((e) => (e.type === 'failure' ? [[e.kind, e.nativeId, e.error.name, e.error.message]] : []));
  const files = (out: SyncEvent[]) => out.flatMap((e) => (e.type === 'file' ? [[e.file.nativeId, e.file.access.length]] : []));

  it('fails the one document whose access expression never ends, with a named error, and serves the others', async () => {
    // A second: p2's 300 nested steps must reach the depth limit first even on a busy machine (at
    // 250 ms, a loaded CI worker once hit the time limit before the depth one).
    const out = await events(manifest(`{ public: "id = 'd3' ? ${ENDLESS} : true" }`, 'expression_limits: { timeout_ms: 1000 }'));
    expect(files(out)).toEqual([
      ['d1', 1],
      ['d2', 1],
      ['d4', 1],
    ]);
    expect(failures(out)).toEqual([
      ['user', 'p2', 'RestExpressionLimitError', expect.stringMatching(/ran deeper than 300 nested steps \(expression_limits\.max_depth\)/)],
      ['file', 'd3', 'RestExpressionLimitError', expect.stringMatching(/ran longer than 1000 ms \(expression_limits\.timeout_ms\)/)],
    ]);
  });

  it('fails a document closed when the map of its access entries runs too deep: never served with a shorter list', async () => {
    const access = `{ field: { path: "[id]", map: { type: "'user'", id: "$ = 'd1' ? ${DEEP} : 'ana@example.com'" } } }`;
    const out = await events(manifest(access, 'expression_limits: { max_depth: 40 }'));
    expect(files(out).map(([id]) => id)).toEqual(['d2', 'd3', 'd4']);
    expect(failures(out).find(([kind]) => kind === 'file')).toEqual(['file', 'd1', 'RestExpressionLimitError', expect.stringMatching(/deeper than 40 nested/)]);
  });

  it('bounds expressions by default, and refuses limits out of range', async () => {
    const out = await events(manifest(`{ public: "id = 'd3' ? ${ENDLESS} : true" }`));
    expect(failures(out).map(([, id, , message]) => [id, String(message).replace(/ in .*/, '')])).toEqual([
      ['p2', expect.stringContaining('deeper than 300')],
      ['d3', expect.stringContaining('longer than 1000 ms')],
    ]);
    expect(() => parseRestManifest(manifest("{ public: 'true' }", 'expression_limits: { timeout_ms: 0, max_depth: 100000 }'), 'test.yaml')).toThrow(
      RestManifestError,
    );
  });
});
