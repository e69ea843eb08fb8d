import type { SyncOptions } from '../../src/sync/run-sync';
import { clockedStaging } from '../helpers/clocked-staging';
import { ReconcilingSource } from '../helpers/reconciling-source';
import { databaseKinds } from '../helpers/test-databases';

const ALL = [{ type: 'GROUP' as const, nativeId: 'all' }];
const ANA = [{ type: 'USER' as const, nativeId: 'ana' }];

/**
 * Access reconciliation through the engine's front door: a source whose change feed loses
 * changes (`silently`), synced incrementally into real staging. Every test here fails when
 * reconciliation is switched off (`reconcile: false`): the lost change then stays unapplied.
 */
describe.each(databaseKinds)('access reconciliation of a lossy change feed (%s)', (kind) => {
  const staging = clockedStaging(kind, 'gw-reconcile-');
  const sync = (source: ReconcilingSource, options: Partial<SyncOptions> = {}) => staging.sync(source, options);
  const file = (id: string) =>
    staging
      .db('files')
      .where({ id: `src:${id}` })
      .first();
  const access = async (id: string) =>
    (
      (await staging
        .db('file_permissions')
        .where({ file_id: `src:${id}` })
        .orderBy('principal_id')
        .select('principal_id')) as Array<{ principal_id: string }>
    ).map((p) => p.principal_id);

  /** Ana and Bo, a group of both, twelve pages the group sees; synced in full once. */
  async function synced(): Promise<ReconcilingSource> {
    const s = new ReconcilingSource('src');
    s.putUser({ nativeId: 'ana', email: 'ana@x.example', active: true }).putUser({ nativeId: 'bo', email: 'bo@x.example', active: true });
    s.putGroup({
      nativeId: 'all',
      members: [
        { type: 'USER', nativeId: 'ana' },
        { type: 'USER', nativeId: 'bo' },
      ],
    });
    for (let i = 0; i < 12; i++) s.html(`doc${i}`, `<p>${i}</p>`, ALL);
    expect(await sync(s)).toMatchObject({ mode: 'full', status: 'succeeded' });
    return s;
  }

  it('tombstones a file whose delete event was lost, and counts it as unannounced', async () => {
    const s = await synced();
    s.silently((x) => x.remove('file', 'doc3'));
    const run = await sync(s);
    expect(run).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { deleted: 1 } });
    expect(run.reconciliation).toEqual({ listed: 11, unlisted: 1, missing: 0, accessRewritten: 0, refreshed: 0, deleted: 1, unannounced: 1 });
    expect((await file('doc3')).status).toBe('deleted');
    expect(s.requests).toEqual([{ unlisted: ['doc3'], missing: [], accessChanged: [] }]);
    expect((await staging.db('sync_runs').where({ id: run.runId }).first()).unannounced).toBe(1);
  });

  it('rewrites an access list whose change event was lost, then reads the file again (its content may name its new place)', async () => {
    const s = await synced();
    const before = await file('doc1');
    s.silently((x) => x.html('doc1', '<p>1, moved</p>', ANA));
    const run = await sync(s);
    expect(run.reconciliation).toMatchObject({ accessRewritten: 1, refreshed: 1, unannounced: 2 });
    expect(await access('doc1')).toEqual(['src:ana']);
    const after = await file('doc1');
    expect(after.body_html).toBe('<p>1, moved</p>');
    expect(after.modified_at > before.modified_at).toBe(true);
    expect(s.requests).toEqual([{ unlisted: [], missing: [], accessChanged: ['doc1'] }]);
  });

  it('reads a file whose add event was lost, and restores one deleted and put back', async () => {
    const s = await synced();
    s.remove('file', 'doc5');
    await sync(s);
    expect((await file('doc5')).status).toBe('deleted');
    s.silently((x) => x.html('late', '<p>late</p>', ALL).html('doc5', '<p>5 again</p>', ALL));
    const run = await sync(s);
    expect(run.reconciliation).toMatchObject({ missing: 2, refreshed: 2, unannounced: 2 });
    expect([(await file('late')).status, (await file('doc5')).status]).toEqual(['active', 'active']);
    expect(s.requests.at(-1)?.missing.slice().sort()).toEqual(['doc5', 'late']);
    // The engine handed back the records of those two only: the adapter holds none of its listing.
    expect([...(s.requests.at(-1)?.records?.keys() ?? [])].sort()).toEqual(['doc5', 'late']);
  });

  it('asks about files the listing cannot show: rewrites those that changed, tombstones those gone or unanswered', async () => {
    const s = await synced();
    for (const id of ['doc7', 'doc8', 'doc9', 'doc10']) s.unlistable.add(id);
    s.silently((x) => x.html('doc7', '<p>7</p>', ANA).remove('file', 'doc8'));
    s.quietAboutGone = false;
    const run = await sync(s);
    expect(s.requests[0]?.unlisted.slice().sort()).toEqual(['doc10', 'doc7', 'doc8', 'doc9']);
    expect(run.reconciliation).toMatchObject({ unlisted: 4, accessRewritten: 1, deleted: 1 });
    expect(await access('doc7')).toEqual(['src:ana']);
    // The access change of an unlisted file gets a second round, to refresh its content.
    expect(s.requests[1]).toEqual({ unlisted: [], missing: [], accessChanged: ['doc7'] });
    expect((await file('doc8')).status).toBe('deleted');

    s.quietAboutGone = true;
    s.silently((x) => x.remove('file', 'doc9'));
    await sync(s);
    expect([(await file('doc9')).status, (await file('doc10')).status]).toEqual(['deleted', 'active']);
  });

  it('leaves alone what the run’s own changes just settled', async () => {
    const s = await synced();
    s.unlistable.add('doc2');
    s.html('doc2', '<p>2 edited</p>', ANA); // announced: the run's changes write it
    const run = await sync(s);
    expect(run.reconciliation).toMatchObject({ unlisted: 0, accessRewritten: 0, unannounced: 0 });
    expect(s.requests).toEqual([]);
  });

  it('refuses to tombstone most of the source when the listing shows little of it, and deletes nothing', async () => {
    const s = await synced();
    s.silently((x) => {
      for (let i = 0; i < 9; i++) x.remove('file', `doc${i}`);
    });
    const run = await sync(s);
    expect(run.status).toBe('blocked');
    expect(run.error).toMatch(/would delete 9 of 12 active files.*--allow-mass-delete/);
    expect(await staging.db('files').where({ status: 'deleted' })).toHaveLength(0);
    expect((await sync(s, { allowMassDelete: true })).reconciliation).toMatchObject({ deleted: 9 });
  });

  it('deletes nothing when the listing fails part way', async () => {
    const s = await synced();
    s.silently((x) => x.remove('file', 'doc11'));
    s.failListingAfter = 5;
    const run = await sync(s);
    expect(run).toMatchObject({ status: 'failed', error: 'listing failed part way' });
    expect(await staging.db('files').where({ status: 'deleted' })).toHaveLength(0);
    s.failListingAfter = undefined;
    expect((await sync(s)).reconciliation).toMatchObject({ deleted: 1 });
  });

  it('is off with `reconcile: false`: the lost change stays unapplied until a full run', async () => {
    const s = await synced();
    s.silently((x) => x.remove('file', 'doc3').html('doc1', '<p>1</p>', ANA));
    const off = await sync(s, { reconcile: false });
    expect(off.reconciliation).toBeUndefined();
    expect(s.listings).toBe(0);
    expect([(await file('doc3')).status, await access('doc1')]).toEqual(['active', ['src:all']]);
    await sync(s, { mode: 'full' });
    expect([(await file('doc3')).status, await access('doc1')]).toEqual(['deleted', ['src:ana']]);
  });
});
