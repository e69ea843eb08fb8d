import type { AccessEntry } from '../../src/adapters/adapter';
import { AccessOnlySource, CLEARANCE_POLICY as POLICY } from '../helpers/access-only-source';
import { clockedStaging } from '../helpers/clocked-staging';
import { databaseKinds } from '../helpers/test-databases';

const user = (nativeId: string): AccessEntry => ({ type: 'USER', nativeId });
/**
 * A listed file whose access could not be read now (`UnreadableLiveFile`: a transient failure)
 * through the engine's front door, into real staging: access-only runs and access reconciliation
 * keep its staged access list as it is (never narrowed, widened or staged), never ask `settle`
 * about it nor take it as gone, and count it as one failure named with its reason, charged to the
 * error budget.
 */
describe.each(databaseKinds)('a listed file whose access cannot be read now (%s)', (kind) => {
  const staging = clockedStaging(kind, 'gw-unreadable-listed-');
  const access = staging.permissions;
  const lastRunError = async () => ((await staging.db('sync_runs').orderBy('id', 'desc').first('error')) as { error: string | null }).error;
  const status = async (id: string) =>
    (
      (await staging
        .db('files')
        .where({ id: `src:${id}` })
        .first('status')) as { status: string } | undefined
    )?.status;

  const synced = async (): Promise<AccessOnlySource> => AccessOnlySource.twoDocuments();

  it('an access-only run keeps its staged access list, names the failure in the summary and sync_runs, and stages no file', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    const before = await access('doc');
    // The source narrowed `doc` to Cy, but its access cannot be read now; `other` opened to Bo, readably.
    s.silently((src) => src.html('doc', '<p>doc</p>', [user('cy')], { attributes: { level: 1 } }));
    s.listedUnreadable.add('doc');
    s.silently((src) => src.html('other', '<p>other</p>', [user('ana'), user('bo')], { attributes: { level: 1 } }));
    // A file staging lacks, listed as unreadable: not staged by this.
    s.silently((src) => src.html('new', '<p>new</p>', [user('ana')]));
    s.listedUnreadable.add('new');
    const run = await staging.access(s);
    expect(run).toMatchObject({ mode: 'access', status: 'succeeded', counts: { failed: 2 }, reconciliation: { accessRewritten: 1, missing: 0, unlisted: 0 } });
    expect(run.failures).toEqual(['doc: doc: access request answered 503', 'new: new: access request answered 503']);
    expect(await lastRunError()).toBe(run.failures.join('\n'));
    expect(await access('doc')).toEqual(before);
    expect(await access('other')).toEqual(['USER src:ana', 'USER src:bo']);
    expect(await staging.db('files').where({ id: 'src:new' }).first()).toBeUndefined();

    // Readable again: the source's list is applied, and nothing fails.
    s.listedUnreadable.clear();
    expect(await staging.access(s)).toMatchObject({ status: 'succeeded', counts: { failed: 0 } });
    expect(await access('doc')).toEqual(['USER src:cy']);
  });

  it('spends the error budget like failed items of a content run: past it the run fails, the staged list kept', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    const before = await access('doc');
    s.silently((src) => src.html('doc', '<p>doc</p>', [], { attributes: { level: 1 } }));
    s.listedUnreadable.add('doc');
    const run = await staging.access(s, { errorBudget: { maxFailures: 0, maxFailureRatio: 1, minItems: 1 } });
    expect(run).toMatchObject({ status: 'failed', error: expect.stringContaining('doc: access request answered 503') });
    expect(await access('doc')).toEqual(before);
  });

  it('access reconciliation keeps it, counts it once, asks settle nothing about it, and never tombstones it', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    const before = await access('doc');
    // An adapter that says nothing about an unlisted file: had the engine taken `doc` as unlisted, it would be tombstoned.
    s.quietAboutGone = true;
    s.silently((src) => src.html('doc', '<p>doc</p>', [user('cy')], { attributes: { level: 1 } }));
    s.listedUnreadable.add('doc');
    // `other` failed by the run's changes too: one failure, not two.
    s.fail('other', new Error('other: content unreadable'));
    s.listedUnreadable.add('other');
    const run = await staging.sync(s, { mode: 'incremental' });
    expect(run).toMatchObject({ status: 'succeeded', counts: { failed: 2, deleted: 0 }, reconciliation: { unlisted: 0, deleted: 0 } });
    expect(run.failures).toEqual(['other: other: content unreadable', 'doc: doc: access request answered 503']);
    expect(await lastRunError()).toBe(run.failures.join('\n'));
    expect(await access('doc')).toEqual(before);
    expect(await status('doc')).toBe('active');
    expect(s.requests.flatMap((r) => [...r.unlisted, ...r.missing, ...r.accessChanged])).toEqual([]);
  });

  it('under an access policy, it passes through the policy stage with its staged grant kept (an access-only run and reconciliation)', async () => {
    const s = await synced();
    expect(await staging.sync(s, { mode: 'full', policy: POLICY })).toMatchObject({ status: 'succeeded' });
    const before = await access('doc');
    expect(before.some((p) => p.startsWith('GROUP src:policy-d-'))).toBe(true);

    // Its level raised to a class no run staged: listed all the same (counted, not left to a content run).
    s.silently((src) => src.html('doc', '<p>doc</p>', [user('bo')], { attributes: { level: 5 } }));
    s.listedUnreadable.add('doc');
    const run = await staging.access(s, { policy: POLICY });
    expect(run).toMatchObject({ status: 'succeeded', counts: { failed: 1 } });
    expect(run.failures).toEqual(['doc: doc: access request answered 503']);
    expect(await access('doc')).toEqual(before);

    s.quietAboutGone = true;
    const incremental = await staging.sync(s, { mode: 'incremental', policy: POLICY });
    expect(incremental).toMatchObject({ status: 'succeeded', counts: { failed: 1, deleted: 0 } });
    expect(await access('doc')).toEqual(before);
    expect(await status('doc')).toBe('active');
  });
});
