import pino from 'pino';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from '../../src/adapters/sql';
import { crawlGateway } from '../../src/conformance/crawl/crawl-gateway';
import { CrawlRecorder } from '../../src/conformance/crawl/crawl-recorder';
import { accessInputFromCrawl, EffectiveAccess } from '../../src/conformance/access/effective-access';
import { GatewayClient } from '../../src/conformance/crawl/gateway-client';
import { RateLimitPacer } from '../../src/conformance/crawl/rate-limit-pacer';
import { policyGrants } from '../../src/policies/evaluate-policy';
import { parsePolicy } from '../../src/policies/load-policy';
import { runSync } from '../../src/sync/run-sync';
import { createFixtureSchema, fixtureMapping, FixtureWriter, seedFixture } from '../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../helpers/sql-source';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });

const POLICY = parsePolicy(`version: 1
rules:
  - name: department-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-read-policies
    roles: [editor]
    allow: doc.kind == 'policy'
  - name: auditors-read-the-board
    roles: [auditor]
    allow: "doc.space == 'board' and 'beta' not in doc.tags"
`);

/**
 * The SQL adapter (a SQLite source database) with a policy, synced into SQLite and Postgres
 * staging, crawled over HTTP like the platform: every (person, document) pair must match the
 * policy evaluated on the source's own rows — before and after a person changes department and a
 * document's level rises, in an incremental run with access reconciliation.
 */
describe.each(databaseKinds)('a SQL source with an access policy (%s staging)', (kind) => {
  let gw: TestGateway;
  let source: SqlSource;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    source = await createSqlSource('sqlite');
    await createFixtureSchema(source.db);
    await seedFixture(source);
  });
  afterAll(async () => {
    await source?.destroy();
    await gw?.close();
  });

  const sync = () => {
    const mapping = fixtureMapping('modified');
    // Access comes from the policy alone, so the oracle below is the policy itself.
    const { access: _explicit, ...documents } = mapping.documents;
    const adapter = createSqlAdapter({
      connection: parseDatabaseUrl(source.url),
      mapping: resolveSqlMapping({ ...mapping, documents }),
      sourceName: 'sql',
      pageSize: 5,
    });
    return runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger }, { policy: POLICY });
  };

  async function mismatches(): Promise<string[]> {
    const client = new GatewayClient({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      authForm: 'bearer',
      concurrency: 2,
      timeoutMs: 10_000,
      recorder: new CrawlRecorder(),
      pacer: new RateLimitPacer(),
    });
    const access = new EffectiveAccess(accessInputFromCrawl(await crawlGateway(client, { concurrency: 2, skipDownloads: true })));
    client.close();
    const people = (await source.db('people').select()) as Array<{
      id: number;
      email: string;
      is_active: number | boolean;
      department: string;
      clearance: number;
    }>;
    const roles = (await source.db('role_assignments').select()) as Array<{ person_id: number; role: string }>;
    const docs = (await source.db('documents').select()) as Array<{ id: number; kind: string; space: string; department: string; level: number; tags: string }>;
    const wrong: string[] = [];
    for (const d of docs) {
      const doc = { attributes: { kind: d.kind, space: d.space, department: d.department, level: d.level, tags: d.tags.split(',').map((t) => t.trim()) } };
      for (const p of people) {
        const user = { attributes: { department: p.department, clearance: p.clearance }, roles: roles.filter((r) => r.person_id === p.id).map((r) => r.role) };
        const expected = Boolean(p.is_active) && policyGrants(POLICY, user, doc);
        // The gateway serves people, found by email (one person, one user).
        if (access.canSee(p.email, `sql:${d.id}`) !== expected) wrong.push(`${expected ? 'under' : 'over'}-exposed: person ${p.id} on document ${d.id}`);
      }
    }
    return wrong;
  }

  it('serves exactly the access the policy grants after a full sync', async () => {
    expect(await sync()).toMatchObject({ status: 'succeeded', mode: 'full' });
    expect(await mismatches()).toEqual([]);
  });

  it('follows a department change and a rising level in an incremental run with reconciliation', async () => {
    await source.db('people').where({ id: 2 }).update({ department: 'finance', clearance: 3 });
    await source.db('role_assignments').insert({ person_id: 4, role: 'auditor' });
    await new FixtureWriter(source).updateDocument(5, { level: 3 });
    const summary = await sync();
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    expect(summary.reconciliation).toBeDefined();
    expect(await mismatches()).toEqual([]);
  });
});
