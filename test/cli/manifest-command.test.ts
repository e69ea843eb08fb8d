import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildProgramFor } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';
import { seedDemo } from '../../src/demo/seed-demo';
import { startRateLimitedApi } from '../adapters/rest/rate-limited-api';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const MANIFEST = path.join(__dirname, '../../manifests/content-gateway.yaml');

/** `content-gateway manifest check`, parsed by the real command line, against the demo gateway on loopback. */
async function check(args: string[], env: Record<string, string>): Promise<{ out: string[]; code: number | undefined }> {
  const out: string[] = [];
  let code: number | undefined;
  const runtime: Runtime = {
    env,
    print: (line) => out.push(line),
    listen: () => Promise.reject(new Error('not in this test')),
    onShutdown: () => undefined,
    setExitCode: (c) => (code = c),
    interactive: false,
  };
  const argv = ['node', 'content-gateway', 'manifest', 'check', ...args];
  await (await buildProgramFor(runtime, argv)).parseAsync(argv);
  return { out, code };
}

describe('content-gateway manifest check', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
    await seedDemo(gw.database.db, gw.blobs);
  });
  afterAll(() => gw?.close());

  it('validates, calls the API and prints the first documents with their resolved access and the requests they cost', async () => {
    const { out, code } = await check([MANIFEST, '--limit', '2'], { UPSTREAM_GATEWAY_URL: gw.url, UPSTREAM_GATEWAY_KEY: TEST_KEYS[0] });
    expect(code).toBeUndefined();
    expect(out[0]).toBe(`${MANIFEST}: valid (version 1; streams: users, groups, documents)`);
    expect(out[1]).toMatch(/^users: [1-9]\d* \(\d+ active\); groups: [1-9]\d*$/);
    const documents = out.filter((l) => l.startsWith('document '));
    expect(documents).toHaveLength(2);
    const access = out.filter((l) => l.startsWith('  access: '));
    expect(access).toHaveLength(2);
    // Every principal is named by what the directory says of it: an email, a group's name and size, or everyone.
    for (const line of access) expect(line).toMatch(/^ {2}access: ((everyone|user \S+@\S+|group .+ \(\d+ direct members?\))(, |$))+/);
    expect(out.at(-1)).toMatch(/^2 document\(s\) shown; \d+ request\(s\) to the API$/);
    expect(out.join('\n')).not.toContain(TEST_KEYS[0]);
  });

  it('names the manifest problem and its line, and exits 1', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-check-'));
    const broken = path.join(dir, 'broken.yaml');
    fs.writeFileSync(broken, fs.readFileSync(MANIFEST, 'utf8').replace('record_selector: value.permissions', 'record_selecter: value.permissions'));
    const { out, code } = await check([broken], {});
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/streams\.documents\.access\.request\.record_selecter \(line \d+\): unknown field "record_selecter"/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says why the API refused, without the key, and exits 1', async () => {
    const { out, code } = await check([MANIFEST], { UPSTREAM_GATEWAY_URL: gw.url, UPSTREAM_GATEWAY_KEY: 'not-a-key-of-this-gateway-0123456789' });
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/error: the run stopped: Remote answered 401/);
    expect(out.join('\n')).not.toContain('not-a-key-of-this-gateway');
  });
});

describe('content-gateway manifest check, against an API that announces its rate limit', () => {
  it("says how often requests waited for the API's window and for the source's budget", async () => {
    const api = await startRateLimitedApi('x-ratelimit');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-check-limits-'));
    try {
      const file = path.join(dir, 'limited.yaml');
      fs.writeFileSync(
        file,
        `version: 1
concurrency: 1
requester:
  url_base: \${env:API_URL}
  rate_limit: { budget: { requests: 100, per_seconds: 60 } }
streams:
  documents:
    requester: { path: /items }
    paginator: { type: offset, page_size: 1 }
    record_selector: items
    map: { id: id, name: title, url: "'https://example.com/' & id" }
    content: { html: { template: '<p>{{record.title}}</p>' } }
    access: { public: 'true' }
`,
      );
      const { out, code } = await check([file, '--limit', '6'], { API_URL: api.url });
      expect(code).toBeUndefined();
      expect(out.at(-2)).toMatch(/^rate limits: [1-9]\d* request\(s\) waited for the API's window to reset, 0 for the source's budget$/);
      expect(out.at(-1)).toBe('6 document(s) shown; 6 request(s) to the API');
      expect(api.refused).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await api.close();
    }
  });
});
