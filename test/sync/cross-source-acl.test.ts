import pino from 'pino';
import { createFilesystemAdapter } from '../../src/adapters/filesystem';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from '../../src/adapters/sql';
import { runSync, type SyncSummary } from '../../src/sync/run-sync';
import { makeTree, removeTrees, writeFiles } from '../adapters/filesystem/tree-fixture';
import { crawlAccess, emailsWhoCanSee } from '../helpers/crawl-access';
import { createFixtureSchema, fixtureMapping, seedFixture } from '../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../helpers/sql-source';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

/**
 * Scenarios 1 and 4 of the failure-mode research across two real adapters feeding one gateway:
 * the SQL fixture database (source `hr`) and a filesystem tree (source `fs`), each synced through
 * the real engine into the gateway's SQLite staging, then crawled as the platform crawls it.
 * Emails differ in case and Unicode form between and within the sources; both sources have teams
 * with the same ids and names.
 */
const KEY = TEST_KEYS[0];
const logger = pino({ level: 'silent' });

const DIRECTORY = (finance: string) => `
users:
  - { id: p1, email: PERSON1@Example.COM, full_name: One, active: true }
  - { id: p2, email: person2@EXAMPLE.com, full_name: Two, active: true }
  - { id: mix, email: Mix@Example.com, full_name: Mix, active: true }
groups:
  - { id: finance-team, name: Finance, members: [${finance}] }
  - { id: all-staff, name: All staff, members: [{ user: p1 }] }
`;

describe('two sources, one gateway: one user per normalised email, same-named groups kept apart', () => {
  let sql: SqlSource;
  let gw: TestGateway;
  let root: string;
  let clock: number;

  const run = async (source: 'hr' | 'fs', mode: 'full' | 'auto' = 'full'): Promise<SyncSummary> => {
    clock += 3_600_000;
    const adapter =
      source === 'hr'
        ? createSqlAdapter({ connection: parseDatabaseUrl(sql.url), mapping: resolveSqlMapping(fixtureMapping('modified')), sourceName: 'hr', pageSize: 4 })
        : createFilesystemAdapter({ root, sourceName: 'fs', baseUrl: 'https://kb.example/docs' });
    const summary = await runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) }, { mode });
    expect([summary.status, summary.error, summary.failures]).toEqual(['succeeded', undefined, []]);
    return summary;
  };
  const who = async (id: string) => (await emailsWhoCanSee(gw.url, KEY, id)).map((e) => e.normalize('NFKC').toLowerCase()).sort();

  beforeEach(async () => {
    clock = Date.parse('2026-05-01T00:00:00Z');
    sql = await createSqlSource('sqlite');
    await createFixtureSchema(sql.db);
    await seedFixture(sql);
    // The same person as the directory's Mix (full-width letters), and one person written in two Unicode forms.
    await sql.db('people').insert([
      { id: 8, email: 'ＭＩＸ@example.com', full_name: 'Mix wide', is_active: true, department: 'legal', clearance: 0 },
      { id: 9, email: 'caf\u00e9@example.com', full_name: 'Cafe composed', is_active: true, department: 'legal', clearance: 0 },
      { id: 10, email: 'CAFE\u0301@example.com', full_name: 'Cafe decomposed', is_active: true, department: 'legal', clearance: 0 },
    ]);
    await sql.db('document_access').insert([
      { document_id: 9, principal_type: 'USER', principal_id: '8' },
      { document_id: 10, principal_type: 'USER', principal_id: '10' },
    ]);
    gw = await startTestGateway('sqlite');
    root = makeTree({
      '_directory.yaml': DIRECTORY('{ user: p1 }'),
      'fin/_access.yaml': 'groups: [finance-team]\n',
      'fin/budget.html': '<h1>Budget</h1>',
      'mix/_access.yaml': 'users: [mix, p2]\n',
      'mix/notes.html': '<h1>Notes</h1>',
    });
  });
  afterEach(async () => {
    await gw?.close();
    await sql?.destroy();
    removeTrees();
  });

  it('scenario 1: accounts of one person in case, width and composition variants are served as one user with the union of their access', async () => {
    await run('hr');
    await run('fs');
    const { users } = await crawlAccess(gw.url, KEY);
    const emails = users.map((u) => u.email.trim().normalize('NFKC').toLowerCase()).sort();
    expect(emails).toEqual([...new Set(emails)]);
    // hr people 1-6, 8 (= mix) and 9/10 (one café), fs p1 = person1, p2 = person2, mix.
    expect(emails).toEqual(['café@example.com', 'mix@example.com', ...[1, 2, 3, 4, 5, 6].map((i) => `person${i}@example.com`)].sort());
    expect(await who('fs:mix/notes.html')).toEqual(['mix@example.com', 'person2@example.com']);
    // Document 9 grants hr user 8 (ＭＩＸ), document 10 grants hr user 10 (decomposed café): their persons see them.
    expect(await who('hr:9')).toContain('mix@example.com');
    expect(await who('hr:10')).toContain('café@example.com');
  });

  it('scenario 1: a person removed or deactivated in one source loses what that source granted, and keeps what the other grants', async () => {
    await run('hr');
    await run('fs');
    // Document 2: hr user 3 and hr's finance-team (2, 5).
    expect(await who('hr:2')).toEqual(['person2@example.com', 'person3@example.com', 'person5@example.com']);
    await sql.db('people').where({ id: 2 }).update({ is_active: false });
    await run('hr', 'auto');
    expect(await who('hr:2')).toEqual(['person3@example.com', 'person5@example.com']);
    expect(await who('fs:mix/notes.html')).toContain('person2@example.com');
  });

  it('scenario 4: same-named teams of two sources are two groups; neither grants the other’s members', async () => {
    await run('hr');
    await run('fs');
    const { groups } = await crawlAccess(gw.url, KEY);
    expect(groups.filter((g) => g.name === 'Finance').map((g) => g.id)).toEqual(['fs:finance-team', 'hr:finance-team']);
    // fs:finance-team holds only p1; hr:finance-team holds hr users 2 and 5.
    expect(await who('fs:fin/budget.html')).toEqual(['person1@example.com']);
    expect(await who('hr:2')).not.toContain('person1@example.com');
    // A membership change in one source moves only its group.
    writeFiles(root, { '_directory.yaml': DIRECTORY('{ user: p2 }') }, new Date('2025-03-01T00:00:00Z'));
    await run('fs', 'auto');
    expect(await who('fs:fin/budget.html')).toEqual(['person2@example.com']);
    expect(await who('hr:2')).toEqual(['person2@example.com', 'person3@example.com', 'person5@example.com']);
  });
});
