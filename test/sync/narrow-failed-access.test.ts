import type { AccessEntry } from '../../src/adapters/adapter';
import { SourceUnavailableError } from '../../src/adapters/source-error';
import type { SyncOptions } from '../../src/sync/run-sync';
import { clockedStaging } from '../helpers/clocked-staging';
import { ReconcilingSource } from '../helpers/reconciling-source';
import { databaseKinds } from '../helpers/test-databases';

const user = (nativeId: string): AccessEntry => ({ type: 'USER', nativeId });
const EVERYONE: AccessEntry = { type: 'EVERYONE' };

/**
 * A failed file through the engine's front door, into real staging: a failure that says what the
 * source still grants (`accessAtMost`: its new access rule could not be resolved whole) narrows
 * the staged access list to its intersection with that, never widening it; a failure without it
 * (a transient one) keeps the staged list. Either way the file stays staged, retried next run.
 */
describe.each(databaseKinds)('a failed file’s staged access (%s)', (kind) => {
  const staging = clockedStaging(kind, 'gw-narrow-');
  const sync = (source: ReconcilingSource, options: Partial<SyncOptions> = {}) => staging.sync(source, options);
  const file = (id: string) =>
    staging
      .db('files')
      .where({ id: `src:${id}` })
      .first('status', 'modified_at', 'permissions_modified_at');
  const access = staging.permissions;

  /** Ana, Bo and Cy; `doc` seen by Ana, Bo and everyone, `other` by Ana; synced in full once. */
  async function synced(): Promise<ReconcilingSource> {
    const s = new ReconcilingSource('src');
    for (const id of ['ana', 'bo', 'cy']) s.putUser({ nativeId: id, email: `${id}@x.example`, active: true });
    s.html('doc', '<p>doc</p>', [user('ana'), user('bo'), EVERYONE]);
    s.html('other', '<p>other</p>', [user('ana')]);
    expect(await sync(s)).toMatchObject({ mode: 'full', status: 'succeeded' });
    expect(await access('doc')).toEqual(['GROUP *', 'USER src:ana', 'USER src:bo']);
    return s;
  }

  it('narrows the staged access list to its intersection with what the source still grants, never widening it, through incremental and full runs', async () => {
    const s = await synced();
    const before = await file('doc');
    s.fail('doc', new Error('unknown principal "zed"'), [user('bo'), user('cy')]);
    const run = await sync(s, { mode: 'incremental' });
    expect(run).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { failed: 1 } });
    // Bo is still granted; Ana and everyone were withdrawn; Cy was never staged, so is not added.
    expect(await access('doc')).toEqual(['USER src:bo']);
    const narrowed = await file('doc');
    expect(narrowed.status).toBe('active');
    expect(narrowed.permissions_modified_at > before.permissions_modified_at).toBe(true);
    expect(narrowed.modified_at).toBe(before.modified_at);
    expect(await access('other')).toEqual(['USER src:ana']);

    // A wider rule that still cannot be resolved gives nothing back, and rewrites nothing.
    s.fail('doc', new Error('unknown principal "zed"'), [user('ana'), user('bo'), EVERYONE]);
    expect((await sync(s, { mode: 'incremental' })).counts.failed).toBe(1);
    expect(await access('doc')).toEqual(['USER src:bo']);
    expect((await file('doc')).permissions_modified_at).toBe(narrowed.permissions_modified_at);

    // A full run narrows too (to nobody here), and its sweep keeps the failed file.
    s.fail('doc', new Error('sidecar does not parse'), []);
    expect(await sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { failed: 1, deleted: 0 } });
    expect(await access('doc')).toEqual([]);
    expect((await file('doc')).status).toBe('active');

    // Fixed at the source: the file is read again with its whole new rule.
    s.html('doc', '<p>doc</p>', [user('ana'), user('cy')]);
    expect((await sync(s, { mode: 'incremental' })).counts).toMatchObject({ failed: 0, changed: 1 });
    expect(await access('doc')).toEqual(['USER src:ana', 'USER src:cy']);
  });

  it('keeps the staged access list of a file whose failure says nothing of its access (a transient one)', async () => {
    const s = await synced();
    const before = await file('doc');
    s.fail('doc', new SourceUnavailableError('503 from source'));
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(await access('doc')).toEqual(['GROUP *', 'USER src:ana', 'USER src:bo']);
    expect(await sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded', counts: { failed: 1, deleted: 0 } });
    expect(await access('doc')).toEqual(['GROUP *', 'USER src:ana', 'USER src:bo']);
    expect(await file('doc')).toEqual(before);
  });

  it('leaves a failed file that staging does not have unstaged', async () => {
    const s = await synced();
    s.html('new', '<p>new</p>', [user('ana')]).fail('new', new Error('unknown principal "zed"'), [user('ana')]);
    expect(await sync(s, { mode: 'incremental' })).toMatchObject({ status: 'succeeded', counts: { failed: 1, added: 0 } });
    expect(await file('new')).toBeUndefined();
    expect(await access('new')).toEqual([]);
  });

  it('narrows a file that access reconciliation asks about, when the adapter answers with such a failure', async () => {
    const s = await synced();
    s.unlistable.add('doc');
    s.unresolvable.set('doc', [user('ana')]);
    const run = await sync(s, { mode: 'incremental' });
    expect(run).toMatchObject({ status: 'succeeded', counts: { failed: 1, deleted: 0 } });
    expect(await access('doc')).toEqual(['USER src:ana']);
    expect((await file('doc')).status).toBe('active');
  });
});
