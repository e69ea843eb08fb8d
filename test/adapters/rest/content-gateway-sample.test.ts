import crypto from 'node:crypto';
import { runSync } from '../../../src/sync/run-sync';
import { startPlatformSampleGateway, type PlatformSampleGateway } from '../../conformance/platform-sample-gateway';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { accessByEmail, crawlAccess, gatewayAdapter, silent } from './rest-gateway-fixture';

const KEY = TEST_KEYS[0];

/** What a gateway serves of a file, the way the platform reads it: its fields, HTML body, and the SHA-256 and length of its bytes. */
async function served(url: string, key: string, id: string): Promise<Record<string, unknown>> {
  const headers = { Authorization: `Bearer ${key}` };
  const res = await fetch(`${url}/v1/files/${encodeURIComponent(id)}`, { headers });
  expect([id, res.status]).toEqual([id, 200]);
  const { value } = (await res.json()) as { value: Record<string, unknown> & { content: { mime_type: string; body?: string } } };
  const out: Record<string, unknown> = {
    name: value.name,
    external_url: value.external_url,
    created_datetime: value.created_datetime,
    created_by: value.created_by,
    last_modified_by: value.last_modified_by,
    // The sample sends `{}` for none; this gateway leaves the field out: the same for the platform.
    custom_attributes: value.custom_attributes ?? {},
    mime: value.content.mime_type,
    body: value.content.body,
  };
  if (value.content.mime_type !== 'text/html') {
    const bytes = Buffer.from(await (await fetch(`${url}/v1/files/${encodeURIComponent(id)}/download`, { headers })).arrayBuffer());
    out.bytes = [bytes.length, crypto.createHash('sha256').update(bytes).digest('hex')];
  }
  return out;
}

/**
 * manifests/content-gateway.yaml pointed at the test fixture that reproduces the platform's sample
 * server on the wire (test/conformance/platform-sample-gateway.md, its defects off): synced through
 * the real engine into a second gateway, which must serve the same files, bodies, bytes and
 * effective access by email.
 */
describe.each([
  ["the sample's own shape", { defects: false, specExtras: false }],
  // What else the platform's spec allows (a user without state, a file without status, an upper-case SHA-1, ...), and the sample's defects (a declared size its bytes do not have).
  ['what else the spec allows, defects on', { defects: true, specExtras: true }],
])("manifests/content-gateway.yaml against the platform's sample server (the fixture reproducing it): %s", (_, options) => {
  let sample: PlatformSampleGateway;
  let mirror: TestGateway;

  beforeAll(async () => {
    // 110 more articles than the sample's eight, so its $top/$skip nextLinks are followed.
    sample = await startPlatformSampleGateway({ key: 'sample-key-0123456789', extraFiles: 110, ...options });
    mirror = await startTestGateway('sqlite');
  });
  afterAll(async () => {
    await mirror?.close();
    await sample?.close();
  });

  it('serves the same files, bodies, bytes and effective access by email as the sample', async () => {
    const adapter = gatewayAdapter(sample.url, sample.key);
    const summary = await runSync(adapter, { db: mirror.database.db, blobs: mirror.blobs, logger: silent }, { mode: 'full' });
    expect([summary.status, summary.failures]).toEqual(['succeeded', []]);

    const [upstream, mirrored] = await Promise.all([crawlAccess(sample.url, sample.key), crawlAccess(mirror.url, KEY)]);
    const files = upstream.files
      // A file without a status is active, as the platform takes it.
      .filter((f) => f.status !== 'deleted')
      .map((f) => f.id)
      .sort();
    expect(files.length).toBeGreaterThan(100);
    expect(mirrored.files.map((f) => f.id).sort()).toEqual(files.map((id) => `upstream:${id}`).sort());
    for (const id of files) expect([id, await served(mirror.url, KEY, `upstream:${id}`)]).toEqual([id, await served(sample.url, sample.key, id)]);

    const expected = accessByEmail(upstream);
    // Some people see some files but not all: the comparison is not trivially everyone-sees-everything.
    expect(Object.values(expected).some((seen) => seen.length > 0 && seen.length < files.length)).toBe(true);
    expect(accessByEmail(mirrored, 'upstream:')).toEqual(expected);
  });
});
