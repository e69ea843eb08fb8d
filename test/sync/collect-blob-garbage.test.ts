import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BlobStore } from '../../src/blobs/blob-store';
import { DbBlobStore } from '../../src/blobs/db-blob-store';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { S3BlobStore } from '../../src/blobs/s3-blob-store';
import { startS3Server, type TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';
import { StagingWriter } from '../helpers/staging-writer';
import { collectBlobGarbage, SyncRunningError } from '../../src/sync/collect-blob-garbage';
import { htmlFile } from '../helpers/staging-fixtures';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const HOUR = 3_600_000;
const setups = databaseKinds.flatMap((kind) => (['directory', 'database', 's3'] as const).map((store) => [kind, store] as const));

let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3.close());

describe.each(setups)('collectBlobGarbage on %s, blobs in the %s store', (kind, store) => {
  let t: TestDatabase;
  let dir: string;
  let blobs: BlobStore;
  const keys = async (): Promise<string[]> => {
    const out: string[] = [];
    for await (const b of blobs.list()) out.push(b.key);
    return out.sort();
  };
  const later = (ms: number) => () => new Date(Date.now() + ms);

  beforeEach(async () => {
    t = await createTestDatabase(kind);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-gc-'));
    const inS3 = { ...s3, prefix: path.basename(dir), forcePathStyle: true, spoolDir: dir };
    blobs = store === 'database' ? new DbBlobStore(t.db) : store === 's3' ? new S3BlobStore(inS3, t.db) : new FsBlobStore(dir);
  });
  afterEach(async () => {
    blobs.close?.();
    await t.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A blob a file row points at, and two no row does. */
  async function stage(): Promise<{ kept: string; gone: string[] }> {
    const [a, b, c] = await Promise.all(['%PDF kept', 'orphan one', 'orphan two'].map((text) => blobs.put(Buffer.from(text))));
    if (!a || !b || !c) throw new Error('put failed');
    await new StagingWriter(t.db).putFiles([
      {
        file: htmlFile('test:deck', { mime_type: 'application/pdf', body_html: null, blob_key: a.key, sha256: a.sha256, sha1: a.sha1, size: a.size }),
        permissions: [],
      },
    ]);
    return { kept: a.key, gone: [b.key, c.key].sort() };
  }

  it('deletes the blobs no row points at (a dry run only counts them) and keeps the rest readable', async () => {
    const { kept, gone } = await stage();
    const dry = await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: true, now: later(2 * HOUR) });
    expect(dry).toEqual({ blobs: 3, unreferenced: 2, recent: 0, leftovers: 0 });
    expect(await keys()).toEqual([kept, ...gone].sort());
    const real = await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false, now: later(2 * HOUR) });
    expect(real).toEqual({ blobs: 3, unreferenced: 2, recent: 0, leftovers: 0 });
    expect(await keys()).toEqual([kept]);
    expect(await blobs.stat(kept)).toEqual({ size: '%PDF kept'.length });
    expect(await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false, now: later(2 * HOUR) })).toEqual({
      blobs: 1,
      unreferenced: 0,
      recent: 0,
      leftovers: 0,
    });
  });

  it('spares blobs stored within the grace period', async () => {
    await stage();
    expect(await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false })).toEqual({ blobs: 3, unreferenced: 0, recent: 2, leftovers: 0 });
    expect(await keys()).toHaveLength(3);
  });

  it('spares a blob that a sync stores again after the collection listed it as old', async () => {
    const { gone } = await stage();
    const [again, other] = gone as [string, string];
    const content = new Map([
      [(await blobs.put(Buffer.from('orphan one'))).key, 'orphan one'],
      [(await blobs.put(Buffer.from('orphan two'))).key, 'orphan two'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    // The store as it is, except that right after listing `again`, a sync stores its content anew.
    const racing = Object.create(blobs) as BlobStore;
    racing.list = async function* () {
      for await (const blob of blobs.list()) {
        yield blob;
        if (blob.key === again) await blobs.put(Buffer.from(content.get(again) ?? ''));
      }
    };
    expect(await collectBlobGarbage(t.db, racing, { graceMs: 30, dryRun: false })).toMatchObject({ blobs: 3, unreferenced: 2 });
    expect(await blobs.stat(again)).toBeDefined();
    expect(await blobs.stat(other)).toBeUndefined();
  });

  it('removes what interrupted writes left behind once older than the grace period', async () => {
    const old = new Date(Date.now() - 2 * HOUR);
    if (store === 'directory') {
      const kept = await blobs.put(Buffer.from('x'));
      const leftovers = [path.join(dir, 'tmp', '1-a.tmp'), path.join(dir, kept.key.slice(0, 2), '1-b.tmp')];
      const fresh = path.join(dir, 'tmp', '1-c.tmp');
      fs.mkdirSync(path.join(dir, 'tmp'), { recursive: true });
      for (const file of [...leftovers, fresh]) fs.writeFileSync(file, 'half a blob');
      for (const file of leftovers) fs.utimesSync(file, old, old);
      expect((await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false })).leftovers).toBe(2);
      expect(leftovers.filter((f) => fs.existsSync(f))).toEqual([]);
      expect(fs.existsSync(fresh)).toBe(true);
    } else if (store === 's3') {
      const leftover = path.join(dir, '1-a.spool');
      fs.writeFileSync(leftover, 'half a blob');
      fs.utimesSync(leftover, old, old);
      fs.writeFileSync(path.join(dir, '1-c.spool'), 'half a blob');
      expect((await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false })).leftovers).toBe(1);
      expect(fs.readdirSync(dir)).toEqual(['1-c.spool']);
    } else {
      await t.db('blob_chunks').insert([
        { content_id: 'killed', seq: 0, data: Buffer.from('half'), written_at: old.toISOString() },
        { content_id: 'under-way', seq: 0, data: Buffer.from('half'), written_at: new Date().toISOString() },
      ]);
      const kept = await blobs.put(Buffer.from('x'));
      await t.db('blob_chunks').whereNot({ content_id: 'killed' }).whereNot({ content_id: 'under-way' }).update({ written_at: old.toISOString() });
      expect((await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false })).leftovers).toBe(1);
      expect(((await t.db('blob_chunks').select('content_id')) as Array<{ content_id: string }>).map((r) => r.content_id).sort()).toEqual(
        [((await t.db('blobs').where({ key: kept.key }).first('content_id')) as { content_id: string }).content_id, 'under-way'].sort(),
      );
    }
  });

  it('refuses to run while a sync holds a lock, naming it (a lease that expired does not count)', async () => {
    await stage();
    await t.db('sync_locks').insert({ source: 'crashed', owner: 'a dead process', expires_at: new Date(Date.now() - HOUR).toISOString() });
    expect((await collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: true, now: later(0) })).blobs).toBe(3);
    await t.db('sync_locks').insert({ source: 'filesystem', owner: 'someone', expires_at: new Date(Date.now() + 3 * HOUR).toISOString() });
    await expect(collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false, now: later(2 * HOUR) })).rejects.toThrow(SyncRunningError);
    await expect(collectBlobGarbage(t.db, blobs, { graceMs: HOUR, dryRun: false, now: later(2 * HOUR) })).rejects.toThrow(/'filesystem' is running/);
    expect(await keys()).toHaveLength(3);
  });
});
