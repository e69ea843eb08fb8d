import pino from 'pino';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from '../../src/adapters/sql';
import { parsePolicy } from '../../src/policies/load-policy';
import { runAccessSync } from '../../src/sync/run-access-sync';
import { runSync } from '../../src/sync/run-sync';
import { emailsWhoCanSee } from '../helpers/crawl-access';
import { createFixtureSchema, fixtureMapping, seedFixture } from '../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../helpers/sql-source';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });
const POLICY = parsePolicy(`version: 1
rules:
  - name: cleared
    allow: user.clearance >= doc.level
`);
const OTHER_POLICY = parsePolicy(`version: 1
rules:
  - name: same-department
    allow: user.department == doc.department
`);

/**
 * An access-only run of a source with an access policy applies the policy to the users' and
 * documents' current attributes, as `permissions()` and `liveFiles()` yield them: a user whose
 * clearance drops and a document whose level rises (its modified time unchanged) lose and take
 * away access on /v1. A policy other than the one the staged groups were compiled under fails the
 * run (only a full run recompiles them) and leaves what is served.
 */
describe.each(databaseKinds)('access-only runs of a source with an access policy (%s staging, SQL source, through the gateway API)', (kind) => {
  let gw: TestGateway;
  let source: SqlSource;
  let clock: number;
  const deps = () => {
    clock += 60_000;
    const at = clock;
    return { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(at) };
  };
  const adapter = () => {
    const base = fixtureMapping('modified');
    // Access comes from the policy alone.
    const { access: _explicit, ...documents } = base.documents;
    return createSqlAdapter({ connection: parseDatabaseUrl(source.url), mapping: resolveSqlMapping({ ...base, documents }), sourceName: 'hr', pageSize: 4 });
  };
  const emailsWhoSee = (fileId: string): Promise<string[]> => emailsWhoCanSee(gw.url, TEST_KEYS[0], fileId);

  beforeEach(async () => {
    gw = await startTestGateway(kind);
    source = await createSqlSource('sqlite');
    await createFixtureSchema(source.db);
    await seedFixture(source);
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await source.destroy();
    await gw.close();
  });

  it('recomputes the policy from the current attributes of users and documents', async () => {
    expect(await runSync(adapter(), deps(), { mode: 'full', policy: POLICY })).toMatchObject({ status: 'succeeded' });
    // Clearance is id % 4 (user 6 inactive), a document's level its id % 4.
    expect(await emailsWhoSee('hr:1')).toEqual(['person1@example.com', 'person2@example.com', 'person3@example.com', 'person5@example.com']);
    expect(await emailsWhoSee('hr:2')).toEqual(['person2@example.com', 'person3@example.com']);
    expect(await emailsWhoSee('hr:3')).toEqual(['person3@example.com']);

    await source.db('people').where({ id: 3 }).update({ clearance: 0 });
    await source.db('documents').where({ id: 2 }).update({ level: 3 });
    expect(await runAccessSync(adapter(), deps(), { policy: POLICY })).toMatchObject({ mode: 'access', status: 'succeeded' });
    expect(await emailsWhoSee('hr:1')).toEqual(['person1@example.com', 'person2@example.com', 'person5@example.com']);
    expect(await emailsWhoSee('hr:2')).toEqual([]);
    expect(await emailsWhoSee('hr:3')).toEqual([]);
  });

  it('fails under a policy the staged groups were not compiled under, and keeps what is served', async () => {
    expect(await runSync(adapter(), deps(), { mode: 'full', policy: POLICY })).toMatchObject({ status: 'succeeded' });
    await source.db('people').where({ id: 3 }).update({ clearance: 0 });
    expect(await runAccessSync(adapter(), deps(), { policy: OTHER_POLICY })).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('a full run recompiles them'),
    });
    expect(await emailsWhoSee('hr:3')).toEqual(['person3@example.com']);
  });
});
