import crypto from 'node:crypto';
import { stageFiles } from '@content-gateway/kit/bench/stage-files';
import { gunicornAvailable, startSampleServer, type SampleServer } from '@content-gateway/kit/bench/start-sample-server';
import { runSync } from '../../../src/sync/run-sync';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { accessByEmail, crawlAccess, gatewayAdapter, silent } from './rest-gateway-fixture';

const KEY = TEST_KEYS[0];
const SAMPLE_KEY = 'gunicorn-sample-key-0123456789';
const withGunicorn = gunicornAvailable() ? describe : describe.skip;
if (!gunicornAvailable())
  console.warn(
    '[content-gateway tests] gunicorn is not installed: the content-gateway manifest against the sample server under gunicorn is SKIPPED (apt-get install -y python3-flask gunicorn).',
  );

/** A file as a gateway serves it to the platform: its fields, HTML body, and the length and SHA-256 of its bytes. */
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
 * The shipped content-gateway manifest against a real process: the sample gateway stand-in
 * (kit/bench/sample-server, Flask under Debian's gunicorn, written here from the sample's
 * behaviour) serving staged files. Synced through the real engine into a second gateway, which
 * serves the same files, bodies, bytes and effective access (every file public, as the sample has it).
 */
withGunicorn('manifests/content-gateway.yaml against the sample gateway under gunicorn (a real Flask process)', () => {
  let staged: TestDatabase;
  let sample: SampleServer;
  let mirror: TestGateway;

  beforeAll(async () => {
    staged = await createTestDatabase('sqlite');
    await stageFiles(staged.db, 240);
    sample = await startSampleServer(staged.env.SQLITE_PATH!, SAMPLE_KEY, 2);
    mirror = await startTestGateway('sqlite');
  }, 120_000);
  afterAll(async () => {
    await mirror?.close();
    await sample?.close();
    await staged?.destroy();
  });

  it('serves the same files, bodies, bytes and effective access as the sample', async () => {
    const summary = await runSync(gatewayAdapter(sample.url, SAMPLE_KEY), { db: mirror.database.db, blobs: mirror.blobs, logger: silent }, { mode: 'full' });
    expect([summary.status, summary.failures]).toEqual(['succeeded', []]);
    const [upstream, mirrored] = await Promise.all([crawlAccess(sample.url, SAMPLE_KEY), crawlAccess(mirror.url, KEY)]);
    const files = upstream.files
      .filter((f) => f.status !== 'deleted')
      .map((f) => f.id)
      .sort();
    expect(files.length).toBeGreaterThan(200);
    expect(mirrored.files.map((f) => f.id).sort()).toEqual(files.map((id) => `upstream:${id}`).sort());
    for (const id of files) expect([id, await served(mirror.url, KEY, `upstream:${id}`)]).toEqual([id, await served(sample.url, SAMPLE_KEY, id)]);
    // Every file public on both: the wildcard, served again as GROUP *.
    for (const file of mirrored.files) expect([file.id, file.permissions]).toEqual([file.id, [{ type: 'GROUP', id: '*', action: 'VIEW' }]]);
    expect(accessByEmail(mirrored, 'upstream:')).toEqual(accessByEmail(upstream));
  });
});
