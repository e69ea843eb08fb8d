import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createSqlAdapter, loadSqlMapping, parseDatabaseUrl } from '../../src/adapters/sql';
import { parseExpectations } from '../../src/conformance/access/access-expectations';
import { runConformance } from '../../src/conformance/run-conformance';
import { loadPolicy } from '../../src/policies/load-policy';
import { explainStagedAccess } from '../../src/sync/explain-staged-access';
import { runSync } from '../../src/sync/run-sync';
import { createSqlSource, runSqlScript, sourceKinds, type SqlSource } from '../helpers/sql-source';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

/**
 * docs/sql-adapter.md's "Access policies" walkthrough, kept true: the example database with the
 * example policy syncs and passes the conformance harness (strict) with the policy's
 * expectations; `policy explain` names the granting rule; after Dee moves to finance with
 * clearance 3, an incremental run lets her read the board minutes.
 */
const EXAMPLE = path.join(__dirname, '../../docs/examples/sql');
const logger = pino({ level: 'silent' });

describe.each(sourceKinds)('the documented policy example on %s', (kind) => {
  let source: SqlSource;
  let gw: TestGateway;

  beforeAll(async () => {
    source = await createSqlSource(kind);
    await runSqlScript(source.db, path.join(EXAMPLE, 'intranet.sql'));
    gw = await startTestGateway('sqlite');
  });
  afterAll(async () => {
    await gw?.close();
    await source?.destroy();
  });

  const sync = async () => {
    const adapter = createSqlAdapter({
      connection: parseDatabaseUrl(source.url),
      mapping: loadSqlMapping(path.join(EXAMPLE, 'mapping.yaml')),
      sourceName: 'sql',
      pageSize: 500,
    });
    return runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger }, { policy: await loadPolicy(path.join(EXAMPLE, 'policy.yaml')) });
  };
  const conformance = async (expectations: string) => {
    const report = await runConformance({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      profile: 'strict',
      secondCrawl: false,
      expectations: parseExpectations(expectations),
    });
    expect(report.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message}`)).toEqual([]);
    expect(report.summary.ok).toBe(true);
  };

  it('passes conformance with the policy expectations, and explains a grant', async () => {
    expect(await sync()).toMatchObject({ status: 'succeeded', mode: 'full', counts: { failed: 0 } });
    await conformance(fs.readFileSync(path.join(EXAMPLE, 'policy-expectations.yaml'), 'utf8'));
    const why = await explainStagedAccess(gw.database.db, await loadPolicy(path.join(EXAMPLE, 'policy.yaml')), 'chen@example.com', 'sql:2');
    expect(why.granted).toBe(true);
    expect(why.rules.filter((r) => r.grants).map((r) => r.rule)).toEqual(['auditors-read-finance-reports']);
  });

  it('follows a change of department and clearance in an incremental run', async () => {
    await source.db('people').where({ id: 4 }).update({ department: 'finance', clearance: 3 });
    expect(await sync()).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    await conformance(
      'expectations:\n  - file: "sql:5"\n    can_see: [ana@example.com, dee@example.com]\n    cannot_see: [bo@example.com, chen@example.com]\n  - file: "sql:4"\n    can_see: [ana@example.com, dee@example.com]\n',
    );
    const why = await explainStagedAccess(gw.database.db, await loadPolicy(path.join(EXAMPLE, 'policy.yaml')), 'dee@example.com', 'sql:5');
    expect(why.rules.find((r) => r.rule === 'department-cleared')).toMatchObject({ grants: true });
  });
});
