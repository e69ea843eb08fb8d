import type { AccessEntry } from '../../src/adapters/adapter';
import { AccessOnlySource, CLEARANCE_POLICY as POLICY } from '../helpers/access-only-source';
import { clockedStaging } from '../helpers/clocked-staging';
import { databaseKinds } from '../helpers/test-databases';

const user = (nativeId: string): AccessEntry => ({ type: 'USER', nativeId });
const EVERYONE: AccessEntry = { type: 'EVERYONE' };
/**
 * A listed file whose access rule cannot be resolved whole (`UnresolvedLiveFile`) through the
 * engine's front door, into real staging: access-only runs and access reconciliation narrow its
 * staged access list to what the source still grants (never widening it, never staging a file),
 * count it as a failure named with its reason, and, under an access policy, drop the policy's
 * document-class grant (closed).
 */
describe.each(databaseKinds)('a listed file whose access cannot be resolved whole (%s)', (kind) => {
  const staging = clockedStaging(kind, 'gw-narrow-listed-');
  const access = staging.permissions;
  const lastRunError = async () => ((await staging.db('sync_runs').orderBy('id', 'desc').first('error')) as { error: string | null }).error;

  const synced = async (): Promise<AccessOnlySource> => AccessOnlySource.twoDocuments();

  it('an access-only run narrows its staged access list to the intersection, counts it as a failure, and stages no file', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    // Ana withdrawn from `doc` (Cy, never staged there, is not added); `other` opened to Bo, resolvably.
    s.listedUnresolvable.set('doc', [user('bo'), user('cy')]);
    s.silently((src) => src.html('other', '<p>other</p>', [user('ana'), user('bo')], { attributes: { level: 1 } }));
    // A file staging lacks, listed as unresolved: not staged by this.
    s.silently((src) => src.html('new', '<p>new</p>', [user('ana')]));
    s.listedUnresolvable.set('new', [user('ana')]);
    const run = await staging.access(s);
    expect(run).toMatchObject({ mode: 'access', status: 'succeeded', counts: { failed: 2 }, reconciliation: { accessRewritten: 2 } });
    expect(run.failures).toEqual(['doc: doc: access rule unresolvable', 'new: new: access rule unresolvable']);
    expect(await lastRunError()).toContain('doc: doc: access rule unresolvable');
    expect(await access('doc')).toEqual(['USER src:bo']);
    expect(await access('other')).toEqual(['USER src:ana', 'USER src:bo']);
    expect(await staging.db('files').where({ id: 'src:new' }).first()).toBeUndefined();

    // A wider rule that still cannot be resolved gives nothing back.
    s.listedUnresolvable.set('doc', [user('ana'), user('bo'), EVERYONE]);
    expect(await staging.access(s)).toMatchObject({ status: 'succeeded', counts: { failed: 2 }, reconciliation: { accessRewritten: 0 } });
    expect(await access('doc')).toEqual(['USER src:bo']);
  });

  it('spends the error budget like failed items of a content run: past it the run fails, the batch narrowed before', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    s.listedUnresolvable.set('doc', []);
    const run = await staging.access(s, { errorBudget: { maxFailures: 0, maxFailureRatio: 1, minItems: 1 } });
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('doc: access rule unresolvable') });
    expect(await access('doc')).toEqual([]);
  });

  it('access reconciliation narrows a file the listing shows as unresolved, counts it once, and asks settle nothing about it', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    s.listedUnresolvable.set('doc', [user('ana')]);
    // `other` failed by the run's changes too (they narrow it): one failure, not two.
    s.fail('other', new Error('other: unknown principal'), [user('ana')]);
    s.listedUnresolvable.set('other', [user('ana')]);
    const run = await staging.sync(s, { mode: 'incremental' });
    expect(run).toMatchObject({ status: 'succeeded', counts: { failed: 2, deleted: 0 } });
    expect(run.failures).toEqual(['other: other: unknown principal', 'doc: doc: access rule unresolvable']);
    expect(await access('doc')).toEqual(['USER src:ana']);
    expect(s.requests.flatMap((r) => [...r.unlisted, ...r.missing, ...r.accessChanged])).toEqual([]);
  });

  it('under an access policy, the narrowing drops the document-class grant (an access-only run and reconciliation)', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full', policy: POLICY })).toMatchObject({ status: 'succeeded' });
    const [docClass] = (await access('doc')).filter((p) => p.startsWith('GROUP src:policy-d-'));
    expect(docClass).toBeDefined();
    expect(await access('other')).toEqual([docClass, 'USER src:ana']);

    // Its level raised to a class no run staged: listed all the same (narrowed, not left to a content run).
    s.silently((src) => src.html('doc', '<p>doc</p>', [user('ana'), user('bo'), EVERYONE], { attributes: { level: 5 } }));
    s.listedUnresolvable.set('doc', [user('bo')]);
    expect(await staging.access(s, { policy: POLICY })).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(await access('doc')).toEqual(['USER src:bo']);
    expect(await access('other')).toEqual([docClass, 'USER src:ana']);

    s.listedUnresolvable.set('other', [user('ana'), user('bo')]);
    expect(await staging.sync(s, { mode: 'incremental', policy: POLICY })).toMatchObject({ status: 'succeeded', counts: { failed: 2 } });
    expect(await access('other')).toEqual(['USER src:ana']);
    expect(await access('doc')).toEqual(['USER src:bo']);
  });
});
