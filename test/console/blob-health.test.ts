import { BlobHealth } from '../../src/console/blob-health';
import { seedDemo } from '../../src/demo/seed-demo';
import { verifyBlobs } from '../../src/sync/verify-blobs';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const HOUR_MS = 3_600_000;

describe.each(databaseKinds)('blob health over the demo staged by a real sync (%s)', (kind) => {
  let gw: TestGateway;
  /** Looks two hours ahead, so a blob stored now is past the one-hour grace. */
  const later = () => new Date(Date.now() + 2 * HOUR_MS);

  beforeAll(async () => {
    gw = await startTestGateway(kind, { blobStore: kind === 'postgres' ? 'database' : 'directory' });
    await seedDemo(gw.database.db, gw.blobs);
  });
  afterAll(() => gw.close());

  it('has no verification before one is asked for, and no garbage after a clean sync', async () => {
    const report = await new BlobHealth(gw.database.db, gw.blobs, { now: later }).report();
    expect(report).toMatchObject({ verification: undefined, verifying: false, garbage: { graceMs: HOUR_MS, summary: { unreferenced: 0, recent: 0 } } });
    expect(report.garbage.summary?.blobs).toBeGreaterThan(0);
  });

  it('verifies like verify-blobs (no repair) and keeps the result; counts an unreferenced blob as garbage, past the grace only', async () => {
    const rows = (await gw.database.db('files').whereNotNull('blob_key').orderBy('id').select('id', 'blob_key')) as Array<{ id: string; blob_key: string }>;
    const lost = rows[0] as { id: string; blob_key: string };
    const alsoLost = rows.find((r) => r.blob_key !== lost.blob_key) as { id: string; blob_key: string };
    await gw.blobs.delete(lost.blob_key);
    await gw.blobs.delete(alsoLost.blob_key);
    const stray = await gw.blobs.put(Buffer.from('no file points at this'));
    const health = new BlobHealth(gw.database.db, gw.blobs, { now: later, maxFindings: 1 });
    const verification = await health.verify();
    const cli = await verifyBlobs(gw.database.db, gw.blobs, { repair: false });
    expect(verification.summary).toEqual(cli);
    const sharing = rows.filter((r) => r.blob_key === lost.blob_key || r.blob_key === alsoLost.blob_key).length;
    expect(verification.summary).toMatchObject({ missing: sharing, corrupt: 0, repaired: 0 });
    expect(verification.findings).toEqual([{ fileId: lost.id, source: 'demo', blobKey: lost.blob_key, problem: 'missing', detail: 'not in the blob store' }]);
    expect(verification.truncated).toBe(true);
    const report = await health.report();
    expect(report.verification).toBe(verification);
    expect(report.garbage.summary).toMatchObject({ unreferenced: 1, recent: 0 });
    expect((await new BlobHealth(gw.database.db, gw.blobs).report()).garbage.summary).toMatchObject({ unreferenced: 0, recent: 1 });
    expect(await gw.blobs.stat(stray.key)).toBeDefined(); // a dry run deletes nothing
  });

  it('says why there is no garbage count while a sync holds a lock', async () => {
    await gw.database.db('sync_locks').insert({ source: 'demo', owner: 'test', expires_at: new Date(Date.now() + 10 * HOUR_MS).toISOString() });
    const report = await new BlobHealth(gw.database.db, gw.blobs).report();
    expect(report.garbage).toEqual({ graceMs: HOUR_MS, refused: expect.stringContaining("A sync of 'demo' is running") });
    await gw.database.db('sync_locks').where({ source: 'demo' }).delete();
  });
});
