import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createSqlAdapter, loadSqlMapping, parseDatabaseUrl } from '../../../src/adapters/sql';
import { parseExpectations } from '../../../src/conformance/access/access-expectations';
import { runConformance } from '../../../src/conformance/run-conformance';
import { loadPolicy } from '../../../src/policies/load-policy';
import { explainStagedAccess } from '../../../src/sync/explain-staged-access';
import { runSync } from '../../../src/sync/run-sync';
import { createSqlSource, runSqlScript, sourceKinds, type SqlSource } from '../../helpers/sql-source';
import { AUTH, startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';

/**
 * docs/sql-adapter.md followed from top to bottom on one database and one staging, as a reader
 * would: the walkthrough (sync, conformance, an edit and a deletion, an incremental sync), then
 * the access-policy steps on top of it (the policy adopted, conformance with its expectations,
 * `policy explain`, Dee's move). The database changes, the expectations files and the policy are
 * read from the guide's own text, so a step that no longer fits the ones before it fails here.
 */
const ROOT = path.join(__dirname, '../../..');
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs/sql-adapter.md'), 'utf8');
const logger = pino({ level: 'silent' });

/** Every `db.exec("…")` of the guide's shell steps, in order: the changes a reader makes to the database. */
const CHANGES = [...GUIDE.matchAll(/db\.exec\(\\"([^"\\]+)\\"\)/g)].map((m) => m[1] as string);

/** One change of the guide, a statement at a time (not every driver runs several in one call). */
async function apply(source: SqlSource, change: string | undefined): Promise<void> {
  for (const statement of (change ?? '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== ''))
    await source.db.raw(statement);
}
/** Every `conformance … --expect <file>`, in order. */
const EXPECTATIONS = [...GUIDE.matchAll(/--expect (\S+)/g)].map((m) => path.join(ROOT, m[1] as string));
const POLICY = path.join(ROOT, /ACCESS_POLICIES=sql=(\S+)/.exec(GUIDE)?.[1] ?? 'missing');
const MAPPING = path.join(ROOT, 'docs/examples/sql/mapping.yaml');

describe.each(sourceKinds)('docs/sql-adapter.md followed in order on %s', (kind) => {
  let source: SqlSource;
  let gw: TestGateway;

  beforeAll(async () => {
    source = await createSqlSource(kind);
    await runSqlScript(source.db, path.join(ROOT, 'docs/examples/sql/intranet.sql'));
    gw = await startTestGateway('sqlite');
  });
  afterAll(async () => {
    await gw?.close();
    await source?.destroy();
  });

  const adapter = () => createSqlAdapter({ connection: parseDatabaseUrl(source.url), mapping: loadSqlMapping(MAPPING), sourceName: 'sql', pageSize: 500 });
  const sync = async (withPolicy: boolean) =>
    runSync(adapter(), { db: gw.database.db, blobs: gw.blobs, logger }, withPolicy ? { policy: await loadPolicy(POLICY) } : {});
  const conformance = async (expectations: string) => {
    const report = await runConformance({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      profile: 'strict',
      secondCrawl: false,
      expectations: parseExpectations(fs.readFileSync(expectations, 'utf8')),
    });
    expect(report.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message}`)).toEqual([]);
  };
  /** What the platform reads to decide whether to fetch a file again: each file's last modification. */
  const servedTimes = async (): Promise<Record<string, string>> => {
    const res = await gw.get('/v1/files?$top=100', AUTH);
    return Object.fromEntries((res.body.value as Array<{ id: string; last_modified_datetime: string }>).map((f) => [f.id, f.last_modified_datetime]));
  };

  it('reads the guide: two database changes, two expectations files, a policy', () => {
    expect(CHANGES).toHaveLength(2);
    expect(EXPECTATIONS.map((f) => path.basename(f))).toEqual(['expectations.yaml', 'policy-expectations.yaml']);
    expect(fs.existsSync(POLICY)).toBe(true);
  });

  it('syncs and passes conformance, then takes an edit and a deletion incrementally', async () => {
    expect(await sync(false)).toMatchObject({ status: 'succeeded', mode: 'full', counts: { added: 6, failed: 0 }, identities: { added: 7 } });
    await conformance(EXPECTATIONS[0] as string);
    await apply(source, CHANGES[0]);
    expect(await sync(false)).toMatchObject({ status: 'succeeded', mode: 'incremental', counts: { changed: 1, deleted: 1, failed: 0 } });
    await conformance(EXPECTATIONS[0] as string);
  });

  it('adopts the policy in a full run that changes no served file, and passes conformance with its expectations', async () => {
    const before = await servedTimes();
    const summary = await sync(true);
    expect(summary).toMatchObject({ status: 'succeeded', mode: 'full', counts: { added: 0, failed: 0 } });
    expect(summary.fellBackToFull).toMatch(/access policy of 'sql' changed/);
    // Access lists were rewritten; no file's content or metadata moved, so the platform fetches none again.
    expect(await servedTimes()).toEqual(before);
    await conformance(EXPECTATIONS[1] as string);
    const why = await explainStagedAccess(gw.database.db, await loadPolicy(POLICY), 'chen@example.com', 'sql:2');
    expect(why.rules.filter((r) => r.grants).map((r) => r.rule)).toEqual(['auditors-read-finance-reports']);
  });

  it("follows Dee's move to finance in an incremental run: she reads the board minutes by department-cleared", async () => {
    await apply(source, CHANGES[1]);
    expect(await sync(true)).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    const why = await explainStagedAccess(gw.database.db, await loadPolicy(POLICY), 'dee@example.com', 'sql:5');
    expect(why.granted).toBe(true);
    expect(why.rules.find((r) => r.rule === 'department-cleared')).toMatchObject({ grants: true });
  });
});
