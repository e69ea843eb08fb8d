import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createSqlAdapter, loadSqlMapping, parseDatabaseUrl } from '../../../src/adapters/sql';
import { parseExpectations } from '../../../src/conformance/access/access-expectations';
import { runConformance } from '../../../src/conformance/run-conformance';
import { runSync } from '../../../src/sync/run-sync';
import { createSqlSource, runSqlScript, sourceKinds, type SqlSource } from '../../helpers/sql-source';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';

/**
 * docs/sql-adapter.md's walkthrough, kept true: the example database (docs/examples/sql/
 * intranet.sql, plain SQL) loads into SQLite, Postgres and MariaDB alike; the example mapping
 * syncs it; the gateway serving it passes the conformance harness (strict profile) with the
 * example's expectations of who sees what.
 */
const EXAMPLE = path.join(__dirname, '../../../docs/examples/sql');
const logger = pino({ level: 'silent' });

describe.each(sourceKinds)('the documented example on %s', (kind) => {
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

  it('syncs with the example mapping and passes conformance with the example expectations', async () => {
    const adapter = createSqlAdapter({
      connection: parseDatabaseUrl(source.url),
      mapping: loadSqlMapping(path.join(EXAMPLE, 'mapping.yaml')),
      sourceName: 'sql',
      pageSize: 500,
    });
    const summary = await runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger });
    expect(summary).toMatchObject({ status: 'succeeded', counts: { added: 6, failed: 0 }, identities: { added: 5 + 2 } });
    const report = await runConformance({
      baseUrl: gw.url,
      key: TEST_KEYS[0],
      profile: 'strict',
      secondCrawl: false,
      expectations: parseExpectations(fs.readFileSync(path.join(EXAMPLE, 'expectations.yaml'), 'utf8')),
    });
    expect(report.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message}`)).toEqual([]);
    expect(report.summary.ok).toBe(true);
  });
});
