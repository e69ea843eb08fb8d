import crypto from 'node:crypto';
import { seedDemo } from '../../../src/demo/seed-demo';
import { runSync } from '../../../src/sync/run-sync';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { accessByEmail, crawlAccess, gatewayAdapter, silent } from './rest-gateway-fixture';

const KEY = TEST_KEYS[0];
const AUTH = { Authorization: `Bearer ${KEY}` };

/** What a file serves: every field but its id and modified time (name, URL, created time and author, parent, custom attributes), its HTML body, or the SHA-256 of its downloaded bytes. */
async function served(gw: TestGateway, id: string, prefix = ''): Promise<Record<string, unknown>> {
  const res = await gw.get(`/v1/files/${encodeURIComponent(id)}`, AUTH);
  const {
    id: _id,
    last_modified_datetime: _modified,
    content,
    ...fields
  } = res.body.value as Record<string, unknown> & {
    content: { mime_type: string; body?: string; size?: number; sha1_hash?: string };
  };
  const out: Record<string, unknown> = { ...fields, mime: content.mime_type, body: content.body };
  // A parent's id is served in the serving source's namespace, like every id.
  const parent = fields.parent_info as { id: string } | undefined;
  if (parent) out.parent_info = { ...parent, id: parent.id.slice(prefix.length) };
  if (content.mime_type !== 'text/html') {
    const bytes = await fetch(`${gw.url}/v1/files/${encodeURIComponent(id)}/download`, { headers: AUTH }).then(async (r) => Buffer.from(await r.arrayBuffer()));
    out.bytes = crypto.createHash('sha256').update(bytes).digest('hex');
    out.size = content.size;
  }
  return out;
}

/**
 * The shipped content-gateway manifest, through the real sync engine: the demo gateway on
 * loopback is the source, a second gateway serves what the rest adapter staged. Both are crawled
 * the platform's way; the second must serve the same files, bodies, bytes and effective access.
 */
describe('manifests/content-gateway.yaml: one gateway fronting another', () => {
  let source: TestGateway;
  let mirror: TestGateway;

  beforeAll(async () => {
    source = await startTestGateway('sqlite');
    await seedDemo(source.database.db, source.blobs);
    mirror = await startTestGateway('sqlite');
  });
  afterAll(async () => {
    await mirror?.close();
    await source?.close();
  });

  it('serves the same files, bodies, bytes and effective access by email as the source', async () => {
    const adapter = gatewayAdapter(source.url, KEY);
    const summary = await runSync(adapter, { db: mirror.database.db, blobs: mirror.blobs, logger: silent }, { mode: 'full' });
    expect([summary.status, summary.failures]).toEqual(['succeeded', []]);

    const [upstream, mirrored] = await Promise.all([crawlAccess(source.url, KEY), crawlAccess(mirror.url, KEY)]);
    const upstreamFiles = upstream.files
      .filter((f) => f.status === 'active')
      .map((f) => f.id)
      .sort();
    expect(upstreamFiles.length).toBeGreaterThan(5);
    expect(mirrored.files.map((f) => f.id).sort()).toEqual(upstreamFiles.map((id) => `upstream:${id}`));
    for (const id of upstreamFiles) expect([id, await served(mirror, `upstream:${id}`, 'upstream:')]).toEqual([id, await served(source, id)]);

    const expected = accessByEmail(upstream);
    expect(Object.values(expected).some((files) => files.length > 0 && files.length < upstreamFiles.length)).toBe(true);
    expect(accessByEmail(mirrored, 'upstream:')).toEqual(expected);
    expect(adapter.lastRun?.requests).toBeGreaterThan(upstreamFiles.length);

    // A second run over the unchanged source writes nothing, and reads no body nor bytes again (their versions are unchanged).
    const again = gatewayAdapter(source.url, KEY);
    const second = await runSync(again, { db: mirror.database.db, blobs: mirror.blobs, logger: silent }, { mode: 'full' });
    expect(second.counts).toMatchObject({ added: 0, changed: 0, deleted: 0, failed: 0, unchanged: upstreamFiles.length });
    const bodies = upstreamFiles.filter((id) => !/\.(pdf|docx|pptx|txt)$/.test(id)).length;
    expect(again.lastRun!.requests).toBeLessThanOrEqual(adapter.lastRun!.requests - bodies);
  });
});
