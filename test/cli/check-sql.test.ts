import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../e2e/cli-process';
import { createSqlSource, runSqlScript, sourceKinds, type SqlSource } from '../helpers/sql-source';

/**
 * Issue 29 (13): `check sql` on each database the SQL adapter reads (SQLite always; Postgres and
 * MariaDB when their test URLs are set): the walkthrough's database and mapping check clean, and
 * a mapping naming a missing table, a database that refuses the connection and a missing mapping
 * file each give one line naming the problem and exit 1, with no password printed and no staging
 * database created.
 */
jest.setTimeout(120_000);

const ROOT = path.join(__dirname, '../..');
const MAPPING = path.join(ROOT, 'docs/examples/sql/mapping.yaml');
const PASSWORD = 'not-printed-7f3a9c';

/** The source's URL with a password and a port nothing listens on: a connection the server refuses. */
function refusedUrl(source: SqlSource, dir: string): string {
  if (source.kind === 'sqlite') return `sqlite:${path.join(dir, 'no-such-folder', 'source.db')}`;
  const url = new URL(source.url);
  url.username = url.username || 'gateway';
  url.password = PASSWORD;
  url.port = '1';
  return url.toString();
}

describe.each(sourceKinds)('content-gateway check sql on %s', (kind) => {
  let source: SqlSource;
  let dir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    source = await createSqlSource(kind);
    await runSqlScript(source.db, path.join(ROOT, 'docs/examples/sql/intranet.sql'));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-check-sql-'));
    env = { SQLITE_PATH: path.join(dir, 'staging', 'gw.sqlite'), SQL_DATABASE_URL: source.url, SQL_MAPPING: MAPPING };
  });
  afterAll(async () => {
    await source?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is ok on the walkthrough database and mapping, and creates no staging', async () => {
    const r = await runCli(['check', 'sql'], env);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^sql: ok\b/)]);
    expect(fs.existsSync(env.SQLITE_PATH as string)).toBe(false);
  });

  it('names a table the mapping reads that the database does not have, in one line', async () => {
    const mapping = path.join(dir, 'missing-table.yaml');
    fs.writeFileSync(mapping, fs.readFileSync(MAPPING, 'utf8').replace('table: documents', 'table: documents_gone'));
    const r = await runCli(['check', 'sql'], { ...env, SQL_MAPPING: mapping });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^sql: .*documents_gone/)]);
  });

  it('names a database that refuses the connection in one line, without its password', async () => {
    const r = await runCli(['check', 'sql'], { ...env, SQL_DATABASE_URL: refusedUrl(source, dir) });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^sql: /)]);
    expect(`${r.stdout}${r.stderr}`).not.toContain(PASSWORD);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('names a missing mapping file by its setting in one line', async () => {
    const r = await runCli(['check', 'sql'], { ...env, SQL_MAPPING: path.join(dir, 'nowhere.yaml') });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^sql: .*nowhere\.yaml/)]);
  });
});
