import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { runConformance } from '../../src/conformance/run-conformance';
import { createFixtureSchema, FixtureWriter, fixtureMapping, seedFixture, writeMapping } from '../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../helpers/sql-source';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/test-databases';
import { runCli, startCli, summaryOf, type CliProcess } from './cli-process';
import { crawlFiles } from './crawl-files';
import { personIdOf } from '../../src/staging/write-path/person-id';

/**
 * The SQL adapter end to end: a SQLite source database and a mapping file, synced by the real
 * CLI (`sync sql` as a child process) into SQLite or Postgres staging, served by the real gateway
 * (`serve` as a child process), crawled as the platform crawls it and checked by the conformance
 * harness (strict profile) with who-can-see-what expectations. Then the source changes (an edit,
 * an insert, a delete, an access row changed without a new timestamp) and an incremental sync
 * brings the crawl in step.
 */
const API_KEY = 'e2e-sql-key-0123456789abcdef01234567';
const SOURCE = 'intranet';
const email = (n: number) => `person${n}@example.com`;

jest.setTimeout(120_000);

describe.each(databaseKinds)('a SQL source synced by the CLI into %s staging, crawled through the gateway', (kind) => {
  let work: string;
  let source: SqlSource;
  let staging: TestDatabase;
  let server: CliProcess | undefined;
  let base: string;

  const env = (): Record<string, string> => ({
    ...staging.env,
    BLOB_DIR: path.join(work, 'blobs'),
    SQL_DATABASE_URL: source.url,
    SQL_MAPPING: path.join(work, 'mapping.yaml'),
    SQL_SOURCE_NAME: SOURCE,
    SQL_PAGE_SIZE: '5',
  });
  const sync = async () => {
    const r = await runCli(['sync', 'sql'], env());
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    return summaryOf(r.stdout);
  };
  const conformance = (expectations: Array<{ file: number; canSee: number[]; cannotSee: number[] }>): Promise<ConformanceReport> =>
    runConformance({
      baseUrl: base,
      key: API_KEY,
      profile: 'strict',
      secondCrawl: false,
      expectations: expectations.map((e) => ({ file: `${SOURCE}:${e.file}`, canSee: e.canSee.map(email), cannotSee: e.cannotSee.map(email) })),
    });
  const problems = (r: ConformanceReport) => r.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message}`);

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-e2e-sql-'));
    source = await createSqlSource('sqlite');
    await createFixtureSchema(source.db);
    await seedFixture(source);
    writeMapping(work, fixtureMapping('modified'));
    staging = await createTestDatabase(kind);
  });
  afterAll(async () => {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await source?.destroy();
    await staging?.destroy();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('syncs in full, serves every document with its access, and passes conformance with the expected effective access', async () => {
    expect(await sync()).toMatchObject({ source: SOURCE, mode: 'full', status: 'succeeded', counts: { added: 12, failed: 0 }, identities: { added: 6 + 2 } });
    server = startCli(['serve'], { ...env(), PORT: '0', HOST: '127.0.0.1', GATEWAY_API_KEY: API_KEY, DEMO_CONTENT: 'off' });
    const line = await server.waitForLine((l) => /listening on http:\/\/localhost:\d+\//.test(l), 'the listening line');
    base = `http://127.0.0.1:${/localhost:(\d+)/.exec(line)?.[1] ?? ''}`;

    const crawled = await crawlFiles(base, API_KEY, { pageSize: 5 });
    expect([...crawled.keys()].sort()).toEqual(Array.from({ length: 12 }, (_, i) => `${SOURCE}:${i + 1}`).sort());
    // A user entry serves the person the account's email maps to (one person, one user).
    const person = (n: number) => `USER ${personIdOf(`${SOURCE}:${n}`, email(n))}`;
    expect(crawled.get(`${SOURCE}:4`)).toMatchObject({
      name: 'Document 4',
      mimeType: 'text/html',
      access: ['GROUP *', `GROUP ${SOURCE}:finance-team`, person(5)],
    });
    expect(crawled.get(`${SOURCE}:1`)?.access).toEqual([`GROUP ${SOURCE}:all-staff`, person(2)]);

    const report = await conformance([
      // A user, and a team: its members.
      { file: 2, canSee: [3, 2, 5], cannotSee: [1, 4] },
      // A team nested in another: members of both.
      { file: 1, canSee: [1, 2, 3, 5], cannotSee: [4] },
    ]);
    expect(problems(report)).toEqual([]);
    expect(report.summary.ok).toBe(true);
  });

  it('brings edits, inserts, deletions and a silent access change in with an incremental run', async () => {
    const writer = new FixtureWriter(source);
    await writer.updateDocument(5, { title: 'Five, revised' });
    await source.db('document_access').insert({ document_id: 13, principal_type: 'USER', principal_id: '4' });
    await writer.insertDocument(13);
    await writer.deleteDocuments([12]);
    await source.db('document_access').where({ document_id: 2, principal_type: 'group' }).delete();
    const summary = await sync();
    expect(summary).toMatchObject({ mode: 'incremental', status: 'succeeded', counts: { added: 1, changed: 2, deleted: 1, failed: 0 } });

    const crawled = await crawlFiles(base, API_KEY, { pageSize: 5 });
    expect(crawled.get(`${SOURCE}:12`)?.status).toBe('deleted');
    expect(crawled.get(`${SOURCE}:13`)).toMatchObject({ status: 'active', name: 'Document 13' });
    expect(crawled.get(`${SOURCE}:5`)?.name).toBe('Five, revised');
    const report = await conformance([
      { file: 2, canSee: [3], cannotSee: [1, 2, 4, 5] },
      { file: 13, canSee: [4], cannotSee: [1, 2, 3, 5] },
    ]);
    expect(problems(report)).toEqual([]);
  });
});
