import pino from 'pino';
import type { AdapterContext, SyncEvent } from '../../src/adapters/adapter';
import { SyncLockedError } from '../../src/staging/repositories/sync-lock';
import { runAccessSync } from '../../src/sync/run-access-sync';
import { runSync } from '../../src/sync/run-sync';
import { emailsWhoCanSee } from '../helpers/crawl-access';
import { ReconcilingSource } from '../helpers/reconciling-source';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });
const ANA = { type: 'USER' as const, nativeId: 'ana' };
const BO = { type: 'USER' as const, nativeId: 'bo' };

/**
 * A source whose full run is slow: it reads everything at its start (its view of access is as of
 * then), then waits at `gate` before yielding it, as a long binary crawl would. `permissions()` lists users and groups without content, for access-only runs.
 */
class SlowSource extends ReconcilingSource {
  gate: Promise<void> | undefined;
  private reached: () => void = () => undefined;
  /** Resolves once a full run is waiting at the gate. */
  readonly waiting = new Promise<void>((resolve) => (this.reached = resolve));
  contentReads = 0;

  override async *full(_ctx: AdapterContext): AsyncIterable<SyncEvent> {
    const identities: SyncEvent[] = [
      ...[...this.users.values()].map((user) => ({ type: 'user' as const, user })),
      ...[...this.groups.values()].map((group) => ({ type: 'group' as const, group })),
    ];
    const files: SyncEvent[] = [...this.files.values()].map((file) => ({ type: 'file' as const, file: { ...file, access: [...file.access] } }));
    if (this.gate) {
      this.reached();
      await this.gate;
    }
    this.contentReads++;
    yield* identities;
    yield* files;
    yield { type: 'checkpoint', checkpoint: { position: this.log.length } };
  }

  async *permissions(_ctx: AdapterContext): AsyncIterable<SyncEvent> {
    for (const user of this.users.values()) yield { type: 'user', user };
    for (const group of this.groups.values()) yield { type: 'group', group };
  }
}

/**
 * Access-only runs as their own kind: they run while a slow full run of the same source holds its
 * lock, their revocations show on the gateway at once, and the full run, whose view of access is
 * older, leaves them in place when it commits.
 */
describe.each(databaseKinds)('access-only runs beside a slow full run (%s staging, through the gateway API)', (kind) => {
  let gw: TestGateway;
  let clock: number;
  const deps = () => {
    clock += 60_000;
    const at = clock;
    return { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(at) };
  };
  const emailsWhoSee = (fileId: string): Promise<string[]> => emailsWhoCanSee(gw.url, TEST_KEYS[0], fileId);

  /** Ana and Bo; a team of both; a page Ana sees directly, one the team sees; synced in full once. */
  async function synced(): Promise<SlowSource> {
    const s = new SlowSource('src');
    s.putUser({ nativeId: 'ana', email: 'ana@x.example', active: true }).putUser({ nativeId: 'bo', email: 'bo@x.example', active: true });
    s.putGroup({ nativeId: 'team', members: [ANA, BO] });
    s.html('direct', '<p>d</p>', [ANA, BO]).html('team', '<p>t</p>', [{ type: 'GROUP', nativeId: 'team' }]);
    expect(await runSync(s, deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    return s;
  }

  beforeEach(async () => {
    gw = await startTestGateway(kind);
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await gw.close();
  });

  it('revokes during a full run that holds the source, and the full run, committing its older view afterwards, leaves the revocation', async () => {
    const s = await synced();
    expect(await emailsWhoSee('src:direct')).toEqual(['ana@x.example', 'bo@x.example']);
    let open: () => void = () => undefined;
    s.gate = new Promise((resolve) => (open = resolve));
    const full = runSync(s, deps(), { mode: 'full' });
    await s.waiting;

    // Ana loses the page and leaves the team at the source while the full run is stuck in its crawl.
    s.silently((x) => x.html('direct', '<p>d</p>', [BO]).putGroup({ nativeId: 'team', members: [BO] }));
    const access = await runAccessSync(s, deps());
    expect(access).toMatchObject({ mode: 'access', status: 'succeeded', reconciliation: { listed: 2, accessRewritten: 1 } });
    expect(s.contentReads).toBe(1); // the first full run's only: the access run read no content
    expect(await emailsWhoSee('src:direct')).toEqual(['bo@x.example']);
    expect(await emailsWhoSee('src:team')).toEqual(['bo@x.example']);

    open();
    expect(await full).toMatchObject({ mode: 'full', status: 'succeeded' });
    expect(await emailsWhoSee('src:direct')).toEqual(['bo@x.example']);
    expect(await emailsWhoSee('src:team')).toEqual(['bo@x.example']);
    const runs = (await gw.database.db('sync_runs').orderBy('id').select('mode', 'status')) as Array<{ mode: string; status: string }>;
    expect(runs).toEqual([
      { mode: 'full', status: 'succeeded' },
      { mode: 'full', status: 'succeeded' },
      { mode: 'access', status: 'succeeded' },
    ]);
  });

  it('lets a later full run write access again (only an older view is refused)', async () => {
    const s = await synced();
    s.silently((x) => x.html('direct', '<p>d</p>', [BO]));
    await runAccessSync(s, deps());
    s.html('direct', '<p>d</p>', [ANA]);
    await runSync(s, deps(), { mode: 'full' });
    expect(await emailsWhoSee('src:direct')).toEqual(['ana@x.example']);
  });

  it('keeps one access run of a source at a time', async () => {
    const s = await synced();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let listing: () => void = () => undefined;
    const listed = new Promise<void>((resolve) => (listing = resolve));
    const live = s.liveFiles.bind(s);
    s.liveFiles = async function* (ctx) {
      listing();
      await gate;
      yield* live(ctx);
    };
    const first = runAccessSync(s, deps());
    await listed;
    await expect(runAccessSync(s, deps())).rejects.toBeInstanceOf(SyncLockedError);
    open();
    expect(await first).toMatchObject({ status: 'succeeded' });
  });
});
