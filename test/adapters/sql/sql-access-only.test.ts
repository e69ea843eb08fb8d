import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from '../../../src/adapters/sql';
import { SyncLock } from '../../../src/staging/repositories/sync-lock';
import { runAccessSync } from '../../../src/sync/run-access-sync';
import { runSync } from '../../../src/sync/run-sync';
import { captureLogger, type CapturedLogger } from '../../helpers/capture-logger';
import { emailsWhoCanSee } from '../../helpers/crawl-access';
import { createFixtureSchema, fixtureMapping, seedFixture } from '../../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../../helpers/sql-source';
import { databaseKinds } from '../../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';

/**
 * Access-only runs of the SQL adapter through the real engine and a served gateway: a membership
 * removed, a user deactivated and an access row deleted at the source show on /v1 after an
 * access-only run, which reads no document body (counted in the statements the adapter runs) and
 * runs while a content run holds the source's lock; a source it cannot read fails the run and
 * leaves what staging serves.
 */
describe.each(databaseKinds)('access-only runs of the SQL adapter (%s staging, through the gateway API)', (kind) => {
  let gw: TestGateway;
  let source: SqlSource;
  let log: CapturedLogger;
  let clock: number;
  const deps = () => {
    clock += 60_000;
    const at = clock;
    return { db: gw.database.db, blobs: gw.blobs, logger: log.logger, now: () => new Date(at) };
  };
  const adapter = (mode: 'modified' | 'none' = 'modified') =>
    createSqlAdapter({ connection: parseDatabaseUrl(source.url), mapping: resolveSqlMapping(fixtureMapping(mode)), sourceName: 'hr', pageSize: 4 });
  /** Statements that read document bodies (the content an access-only run must not read). */
  const bodyReads = () => log.lines().filter((l) => l.msg === 'sql: query' && /[`"]body[`"]|select \* from [`"]documents[`"]/.test(String(l.sql))).length;
  const emailsWhoSee = (fileId: string): Promise<string[]> => emailsWhoCanSee(gw.url, TEST_KEYS[0], fileId);

  beforeEach(async () => {
    gw = await startTestGateway(kind);
    source = await createSqlSource('sqlite');
    await createFixtureSchema(source.db);
    await seedFixture(source);
    log = captureLogger('debug');
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await source.destroy();
    await gw.close();
  });

  it.each(['modified', 'none'] as const)(
    'applies a removed membership, a deactivated user and a deleted access row without reading a body, beside a content run (incremental mode %s)',
    async (mode) => {
      expect(await runSync(adapter(mode), deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
      // Document 1: user 2 and all-staff (finance-team: 2, 5; and 1, 3). Document 2: user 3 and finance-team.
      expect(await emailsWhoSee('hr:1')).toEqual(['person1@example.com', 'person2@example.com', 'person3@example.com', 'person5@example.com']);
      expect(await emailsWhoSee('hr:2')).toEqual(['person2@example.com', 'person3@example.com', 'person5@example.com']);

      await source.db('team_members').where({ team_id: 'all-staff', member_id: '1' }).delete();
      await source.db('people').where({ id: 3 }).update({ is_active: false });
      await source.db('document_access').where({ document_id: 2, principal_type: 'group' }).delete();
      const held = new SyncLock(gw.database.db, 'hr');
      await held.acquire();
      const before = bodyReads();
      try {
        expect(await runAccessSync(adapter(mode), deps())).toMatchObject({ mode: 'access', status: 'succeeded', reconciliation: { accessRewritten: 1 } });
      } finally {
        await held.release();
      }
      expect(bodyReads()).toBe(before);
      expect(before).toBeGreaterThan(0); // the full run's
      expect(await emailsWhoSee('hr:1')).toEqual(['person2@example.com', 'person5@example.com']);
      expect(await emailsWhoSee('hr:2')).toEqual([]);
      // A user gone from the people table is deleted (Inactive) when the last content run's checkpoint lists them;
      // full runs only (mode none) store none: the user stays until the next full run, their grants gone already.
      expect(await emailsWhoSee('hr:3')).toEqual(['person2@example.com', 'person4@example.com', 'person5@example.com']);
      await source.db('people').where({ id: 4 }).delete();
      expect(await runAccessSync(adapter(mode), deps())).toMatchObject({ status: 'succeeded' });
      expect(await gw.database.db('users').where({ id: 'hr:4' }).first('state')).toEqual({ state: mode === 'none' ? 'Active' : 'Inactive' });
      expect(await emailsWhoSee('hr:3')).toEqual(['person2@example.com', 'person5@example.com']); // user 4 was granted document 3
    },
  );

  // Fail closed (scenario 12 of the ACL scenarios, access-only): access rows rewritten to withdraw a
  // reader and grant a type the mapping does not know list the document with the rows it could
  // resolve, and the run narrows its staged access list to those; a query refused narrows nothing.
  it('narrows a document whose access rows turn to an unknown type to the readers they still name; a refused query keeps what is served', async () => {
    expect(await runSync(adapter(), deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    // Document 3: user 4 and all-staff (1, 3 and finance-team: 2, 5).
    const served = ['person1@example.com', 'person2@example.com', 'person3@example.com', 'person4@example.com', 'person5@example.com'];
    expect(await emailsWhoSee('hr:3')).toEqual(served);
    await source.db('document_access').where({ document_id: 3, principal_type: 'USER' }).delete();
    await source.db('document_access').insert({ document_id: 3, principal_type: 'ROLE', principal_id: 'admins' });

    await source.db.schema.renameTable('document_access', 'document_access_moved');
    expect(await runAccessSync(adapter(), deps())).toMatchObject({ status: 'failed', error: expect.stringContaining('document_access') });
    expect(await emailsWhoSee('hr:3')).toEqual(served);
    await source.db.schema.renameTable('document_access_moved', 'document_access');

    const run = await runAccessSync(adapter(), deps());
    expect(run).toMatchObject({ mode: 'access', status: 'succeeded', counts: { failed: 1 }, reconciliation: { accessRewritten: 1 } });
    expect(run.failures).toEqual([expect.stringMatching(/^3: .*access type "ROLE"/)]);
    expect(await emailsWhoSee('hr:3')).toEqual(served.filter((e) => e !== 'person4@example.com'));
    expect(await emailsWhoSee('hr:1')).toEqual(['person1@example.com', 'person2@example.com', 'person3@example.com', 'person5@example.com']);
  });

  it('fails the run and keeps what is served when the directory or the access rows cannot be read', async () => {
    expect(await runSync(adapter(), deps(), { mode: 'full' })).toMatchObject({ status: 'succeeded' });
    const served = await emailsWhoSee('hr:1');
    await source.db('team_members').where({ team_id: 'all-staff', member_id: '1' }).delete();
    await source.db.schema.renameTable('team_members', 'team_members_moved');
    expect(await runAccessSync(adapter(), deps())).toMatchObject({ status: 'failed', error: expect.stringContaining('team_members') });
    expect(await emailsWhoSee('hr:1')).toEqual(served);

    await source.db.schema.renameTable('team_members_moved', 'team_members');
    await source.db('team_members').insert({ team_id: 'all-staff', member_id: '1', member_type: 'USER' });
    await source.db('document_access').where({ document_id: 2, principal_type: 'group' }).delete();
    await source.db.schema.renameTable('document_access', 'document_access_moved');
    expect(await runAccessSync(adapter(), deps())).toMatchObject({ status: 'failed', error: expect.stringContaining('document_access') });
    expect(await emailsWhoSee('hr:1')).toEqual(served);
    expect(await emailsWhoSee('hr:2')).toEqual(['person2@example.com', 'person3@example.com', 'person5@example.com']);
  });
});
