import type { FileRecord } from '../../src/adapters/adapter';
import type { BlobStore } from '../../src/blobs/blob-store';
import { SyncRunsRepository } from '../../src/staging/repositories/sync-runs-repository';
import { emptyBatch, SyncStore } from '../../src/staging/write-path/sync-store';
import { decideFile } from '../../src/sync/record-rows';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';

const AT = '2026-11-24T00:00:00.000Z';
const html = (nativeId: string): FileRecord => ({
  nativeId,
  name: nativeId,
  externalUrl: `https://src.example/${nativeId}`,
  mimeType: 'text/html',
  access: [{ type: 'EVERYONE' }],
  content: { kind: 'html', html: `<p>${nativeId}</p>` },
});

/** Seen marks: where a full run records what it saw, and what its sweep then spares. */
describe.each(databaseKinds)('SyncStore seen marks on %s', (kind) => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase(kind);
  });
  afterEach(() => t.destroy());

  async function written(nativeId: string) {
    const decision = await decideFile('s', html(nativeId), undefined, {} as BlobStore, AT);
    if (decision.kind !== 'added') throw new Error(`expected added, got ${decision.kind}`);
    return { row: decision.row, permissions: decision.permissions, stored: false };
  }

  it("keeps a written file's mark in its row and only the others in sync_seen; the sweep spares both", async () => {
    const store = new SyncStore(t.db);
    const runs = new SyncRunsRepository(t.db);
    const first = await runs.start('s', 'full', AT);
    const setup = emptyBatch();
    setup.files.push(await written('kept'), await written('gone'));
    await store.apply(setup, first, AT);

    const second = await runs.start('s', 'full', AT);
    const batch = emptyBatch();
    batch.files.push(await written('new'));
    batch.seen.push({ kind: 'file', id: 's:new' }, { kind: 'file', id: 's:kept' });
    await store.apply(batch, second, AT);

    expect(await t.db('files').where({ id: 's:new' }).first('seen_run')).toEqual({ seen_run: second });
    expect((await t.db('sync_seen').where({ run_id: second }).select('kind', 'id')).map((r: { id: string }) => r.id)).toEqual(['s:kept']);
    expect(await store.unseenActiveFileCount('s', second)).toBe(1);
    const swept = await store.sweep('s', second, AT);
    expect(swept.files).toBe(1);
    expect((await t.db('files').orderBy('id').select('id', 'status')).map((r: { id: string; status: string }) => `${r.id} ${r.status}`)).toEqual([
      's:gone deleted',
      's:kept active',
      's:new active',
    ]);
  });
});
