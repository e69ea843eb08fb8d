import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createFilesystemAdapter } from '../../../src/adapters/filesystem';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runSync, type SyncOptions } from '../../../src/sync/run-sync';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../../helpers/test-databases';
import { makeDir, makeTree, removeTrees, writeFiles } from './tree-fixture';

/**
 * Issue 30 point 3: a filesystem source's checkpoint does not grow with its tree (each file's
 * version is staged with its row), and incremental runs still find what was added, edited and
 * deleted, against the staged rows.
 */

/** A tree of `n` Markdown files in folders of 100, public. */
function treeOf(n: number): string {
  const files: Record<string, string> = { '_access.yaml': 'public: true\n' };
  for (let i = 0; i < n; i += 1) files[`f${Math.floor(i / 100)}/doc-${i}.md`] = `# Doc ${i}\n`;
  return makeTree(files);
}

describe.each(databaseKinds)('the filesystem checkpoint on %s', (kind) => {
  let t: TestDatabase;
  let clock = Date.parse('2026-06-01T00:00:00Z');
  const now = () => new Date((clock += 60_000));
  beforeAll(async () => {
    t = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await t.destroy();
    removeTrees();
  });

  const sync = (root: string, source: string, options: Partial<SyncOptions>) =>
    runSync(
      createFilesystemAdapter({ root, sourceName: source }),
      { db: t.db, blobs: new FsBlobStore(makeDir()), logger: pino({ level: 'silent' }), now },
      options,
    );
  const checkpointBytes = async (source: string): Promise<number> => {
    const row = (await t.db('sync_checkpoints').where({ source }).first('checkpoint')) as { checkpoint: string };
    return Buffer.byteLength(row.checkpoint);
  };

  it('stays the same size whether the tree holds 100 files or 5,000', async () => {
    const small = await sync(treeOf(100), 'small', { mode: 'full' });
    const large = await sync(treeOf(5_000), 'large', { mode: 'full' });
    expect([small.counts.added, large.counts.added]).toEqual([100, 5_000]);
    // The same tree shape: the only difference could be per-file state.
    expect(await checkpointBytes('large')).toBe(await checkpointBytes('small'));
    expect(await checkpointBytes('large')).toBeLessThan(1_000);
  });

  it('an incremental run still finds added, edited and deleted files, and nothing else', async () => {
    const root = treeOf(300);
    await sync(root, 'inc', { mode: 'full' });
    const later = new Date('2026-01-01T00:00:00Z');
    writeFiles(root, { 'f0/doc-0.md': '# Edited\n', 'f9/new.md': '# New\n' }, later);
    fs.rmSync(path.join(root, 'f1/doc-100.md'));
    const summary = await sync(root, 'inc', { mode: 'incremental' });
    expect(summary).toMatchObject({ mode: 'incremental', status: 'succeeded' });
    expect(summary.counts).toMatchObject({ added: 1, changed: 1, deleted: 1, unchanged: 0, failed: 0 });
    expect(await t.db('files').where({ id: 'inc:f0/doc-0.md' }).first('name')).toEqual({ name: 'Edited' });
    expect(await t.db('files').where({ id: 'inc:f1/doc-100.md' }).first('status')).toEqual({ status: 'deleted' });
    // Nothing left over: the next run has nothing to do, and the run's listing marks are gone.
    expect((await sync(root, 'inc', { mode: 'incremental' })).counts).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 0 });
    expect(Number((await t.db('sync_listed').count({ n: '*' }).first())?.n)).toBe(0);
  });
});
