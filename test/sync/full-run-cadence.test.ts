import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { runSync, type SyncOptions } from '../../src/sync/run-sync';
import { ReconcilingSource } from '../helpers/reconciling-source';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const logger = pino({ level: 'silent' });
const HOUR = 3_600_000;

/** `fullEveryMs`: a full run when the latest one started that long ago, so content lost events left stale converges. */
describe.each(databaseKinds)('the full-run cadence (%s)', (kind) => {
  let t: TestDatabase;
  let blobDir: string;
  let clock: number;
  const sync = (source: ReconcilingSource, options: Partial<SyncOptions> = {}) =>
    runSync(source, { db: t.db, blobs: new FsBlobStore(blobDir), logger, now: () => new Date(clock) }, { fullEveryMs: 24 * HOUR, ...options });

  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-cadence-'));
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  function source(): ReconcilingSource {
    const s = new ReconcilingSource('src');
    for (let i = 0; i < 3; i++) s.html(`doc${i}`, `<p>${i}</p>`);
    return s;
  }

  it('runs full once the latest full run is a cadence old, incremental in between; the stale content then converges', async () => {
    const s = source();
    expect(await sync(s)).toMatchObject({ mode: 'full', fellBackToFull: 'no checkpoint yet' });
    s.silently((x) => x.html('doc1', '<p>1, edited</p>')); // a content change whose event was lost
    clock += 23 * HOUR;
    expect((await sync(s)).mode).toBe('incremental');
    expect((await t.db('files').where({ id: 'src:doc1' }).first()).body_html).toBe('<p>1</p>');
    clock += HOUR;
    expect(await sync(s)).toMatchObject({ mode: 'full', fellBackToFull: 'a full run is due (the last one started 24 h ago; one every 24 h)' });
    expect((await t.db('files').where({ id: 'src:doc1' }).first()).body_html).toBe('<p>1, edited</p>');
    clock += HOUR;
    expect((await sync(s)).mode).toBe('incremental');
  });

  it('counts a full run that was blocked, so incremental runs (and their reconciliation) go on until the next one is due', async () => {
    const s = source();
    for (let i = 3; i < 12; i++) s.html(`doc${i}`, `<p>${i}</p>`);
    await sync(s);
    for (let i = 0; i < 10; i++) s.remove('file', `doc${i}`);
    clock += 25 * HOUR;
    expect(await sync(s)).toMatchObject({ mode: 'full', status: 'blocked' });
    clock += HOUR;
    expect((await sync(s)).mode).toBe('incremental');
  });

  it('is off without `fullEveryMs`, and an explicit incremental run is never turned full', async () => {
    const s = source();
    await sync(s);
    clock += 100 * 24 * HOUR;
    expect((await sync(s, { fullEveryMs: undefined })).mode).toBe('incremental');
    expect((await sync(s, { mode: 'incremental' })).mode).toBe('incremental');
  });
});
