import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from '../../src/adapters/sql';
import { crawlGateway } from '../../src/conformance/crawl/crawl-gateway';
import { CrawlRecorder } from '../../src/conformance/crawl/crawl-recorder';
import { accessInputFromCrawl, EffectiveAccess } from '../../src/conformance/access/effective-access';
import { GatewayClient } from '../../src/conformance/crawl/gateway-client';
import { RateLimitPacer } from '../../src/conformance/crawl/rate-limit-pacer';
import { policyGrants } from '../../src/policies/evaluate-policy';
import { parsePolicy } from '../../src/policies/load-policy';
import type { Policy } from '../../src/policies/policy-types';
import { runSync } from '../../src/sync/run-sync';
import { captureLogger } from '../helpers/capture-logger';
import { createFixtureSchema, DOCUMENT_COUNT, fixtureMapping, FixtureWriter, seedFixture } from '../helpers/sql-fixture';
import { createSqlSource, sourceKinds, type SqlSource } from '../helpers/sql-source';
import { AUTH, startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const POLICY_A = parsePolicy(`version: 1
rules:
  - name: department-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
`);
const POLICY_B = parsePolicy(`version: 1
rules:
  - name: department-only
    allow: user.department == doc.department
  - name: editors-read-policies
    roles: [editor]
    allow: doc.kind == 'policy'
`);

const PAGE = 5;
/** Events per transaction: the engine decides (and loads the pages of) this many files at once. */
const BATCH = 4;

/** A statement that reads documents' bodies: `select *` from the documents table, or one naming its body column. */
function readsBodies(sql: string): boolean {
  return /from [`"]documents[`"]/i.test(sql) && (/^select \*/i.test(sql) || /[`"]body[`"]/i.test(sql));
}

/**
 * What a run reads of the source database, counted from the statements the adapter runs (its
 * debug log of every query): a change of access policy re-syncs access with no body read again,
 * a changed document is read once, and bodies are read a batch per query, not one per document.
 */
describe.each(sourceKinds)('document bodies read from a SQL source (%s)', (kind) => {
  let gw: TestGateway;
  let source: SqlSource;
  let writer: FixtureWriter;

  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
    source = await createSqlSource(kind);
    await createFixtureSchema(source.db);
    await seedFixture(source);
    writer = new FixtureWriter(source);
  });
  afterAll(async () => {
    await source?.destroy();
    await gw?.close();
  });

  /** One sync under `policy`; returns its summary and the body-reading statements it ran. */
  async function sync(policy: Policy, contentReads?: 'when-changed' | 'every-run') {
    const mapping = fixtureMapping('modified');
    const { access: _explicit, ...listed } = mapping.documents;
    const documents = contentReads ? { ...listed, contentReads } : listed;
    const adapter = createSqlAdapter({
      connection: parseDatabaseUrl(source.url),
      mapping: resolveSqlMapping({ ...mapping, documents }),
      sourceName: 'sql',
      pageSize: PAGE,
    });
    const log = captureLogger('debug');
    const summary = await runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger: log.logger }, { batchSize: BATCH, policy });
    const queries = log
      .lines()
      .filter((l) => l.msg === 'sql: query')
      .map((l) => String(l.sql));
    return { summary, queries, bodyReads: queries.filter(readsBodies) };
  }

  /** Every person's access to every document as the platform resolves it, and what `policy` says it must be. */
  async function accessAgainst(policy: Policy): Promise<{ granted: string[]; wrong: string[] }> {
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
    const docs = (await source.db('documents').select('id', 'kind', 'space', 'department', 'level', 'tags')) as Array<{
      id: number;
      kind: string;
      space: string;
      department: string;
      level: number;
      tags: string;
    }>;
    const granted: string[] = [];
    const wrong: string[] = [];
    for (const d of docs) {
      const doc = { attributes: { kind: d.kind, space: d.space, department: d.department, level: d.level, tags: d.tags.split(',').map((t) => t.trim()) } };
      for (const p of people) {
        const user = { attributes: { department: p.department, clearance: p.clearance }, roles: roles.filter((r) => r.person_id === p.id).map((r) => r.role) };
        const expected = Boolean(p.is_active) && policyGrants(policy, user, doc);
        const sees = access.canSee(p.email, `sql:${d.id}`);
        if (sees) granted.push(`${p.id} on ${d.id}`);
        if (sees !== expected) wrong.push(`${expected ? 'under' : 'over'}-exposed: person ${p.id} on document ${d.id}`);
      }
    }
    return { granted, wrong };
  }

  async function served(id: number): Promise<{ body: string; modified: string }> {
    const res = await gw.get(`/v1/files/${encodeURIComponent(`sql:${id}`)}`, AUTH);
    expect(res.status).toBe(200);
    return { body: res.body.value.content.body as string, modified: res.body.value.last_modified_datetime as string };
  }

  it('reads the bodies of a first full sync a batch per query, not one query per document', async () => {
    const { summary, bodyReads } = await sync(POLICY_A);
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'full', counts: { added: DOCUMENT_COUNT } });
    // One statement per batch the engine decides, each by the batch's ids.
    expect(bodyReads).toHaveLength(Math.ceil(DOCUMENT_COUNT / BATCH));
    expect(bodyReads.every((q) => / in \(/i.test(q))).toBe(true);
    expect((await accessAgainst(POLICY_A)).wrong).toEqual([]);
    expect((await served(1)).body).toContain('<p>Body of document 1 &amp; more.</p>');
  });

  it('re-syncs access for a changed policy without reading any body again, the content as it was', async () => {
    const before = await accessAgainst(POLICY_A);
    const pages = await Promise.all([1, 6, 12].map(served));
    const { summary, queries, bodyReads } = await sync(POLICY_B);
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'full', counts: { added: 0 } });
    expect(summary.fellBackToFull).toMatch(/access policy of 'sql' changed/);
    // The documents were listed (so the run did read the source), their bodies not.
    expect(queries.some((q) => /from [`"]documents[`"]/i.test(q))).toBe(true);
    expect(bodyReads).toEqual([]);
    const after = await accessAgainst(POLICY_B);
    expect(after.wrong).toEqual([]);
    expect(after.granted).not.toEqual(before.granted);
    expect(await Promise.all([1, 6, 12].map(served))).toEqual(pages);
  });

  it('reads a document whose body and modified time changed exactly once, in an incremental run and in a policy-change full run', async () => {
    await writer.updateDocument(4, { body: '<p>Rewritten once.</p>' });
    const incremental = await sync(POLICY_B);
    expect(incremental.summary).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    expect(incremental.bodyReads).toHaveLength(1);
    expect((await served(4)).body).toContain('<p>Rewritten once.</p>');

    const untouched = await served(9);
    await writer.updateDocument(7, { body: '<p>Rewritten with the policy.</p>' });
    const full = await sync(POLICY_A);
    expect(full.summary).toMatchObject({ status: 'succeeded', mode: 'full' });
    // One statement, binding one id: document 7's.
    expect(full.bodyReads).toHaveLength(1);
    expect(full.bodyReads[0]).toMatch(/ in \((\?|\$1)\)/i);
    expect((await served(7)).body).toContain('<p>Rewritten with the policy.</p>');
    expect(await served(9)).toEqual(untouched);
    expect((await accessAgainst(POLICY_A)).wrong).toEqual([]);
  });

  it('keeps a page whose body changed without its modified time, unless the mapping reads content every run', async () => {
    const silently = async (body: string): Promise<void> => {
      await source.db('documents').where({ id: 10 }).update({ body });
    };
    const before = await served(10);
    await silently('<p>Changed behind the modified time.</p>');
    // By version (the default), a full run lists the row, sees its version unchanged, reads no body.
    const byVersion = await sync(POLICY_B);
    expect(byVersion.summary).toMatchObject({ status: 'succeeded', mode: 'full' });
    expect(byVersion.bodyReads).toEqual([]);
    expect(await served(10)).toEqual(before);

    // Every run: the next full run reads every row with its body, the changed page among them.
    const first = await sync(POLICY_A, 'every-run');
    expect(first.summary).toMatchObject({ status: 'succeeded', mode: 'full' });
    expect((await served(10)).body).toContain('Changed behind the modified time.');
    await silently('<p>Changed again, the time still where it was.</p>');
    const again = await sync(POLICY_B, 'every-run');
    expect(again.summary).toMatchObject({ status: 'succeeded', mode: 'full' });
    expect(again.bodyReads.length).toBeGreaterThan(0);
    expect((await served(10)).body).toContain('Changed again, the time still where it was.');
    expect((await accessAgainst(POLICY_B)).wrong).toEqual([]);
  });
});
