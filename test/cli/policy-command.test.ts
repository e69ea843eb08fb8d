import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createFixtureSchema, fixtureMapping, seedFixture, writeMapping } from '../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../helpers/sql-source';
import { personIdOf } from '../../src/staging/write-path/person-id';
import { runCli, summaryOf } from '../e2e/cli-process';

jest.setTimeout(120_000);

const POLICY = `version: 1
rules:
  - name: department-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-read-policies
    roles: [editor]
    allow: doc.kind == 'policy'
`;

/**
 * `sync sql --policy` and `policy explain` / `policy check` through the real CLI (child processes)
 * on a SQLite source database (the SQL adapter's fixture: people with departments, clearances and
 * roles; documents with kind, department and level) and SQLite staging.
 */
describe('content-gateway policy', () => {
  let dir: string;
  let source: SqlSource;
  let env: Record<string, string>;
  let policyFile: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-policy-cli-'));
    source = await createSqlSource('sqlite');
    await createFixtureSchema(source.db);
    await seedFixture(source);
    policyFile = path.join(dir, 'policy.yaml');
    fs.writeFileSync(policyFile, POLICY);
    env = {
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      SQL_DATABASE_URL: source.url,
      SQL_MAPPING: writeMapping(dir, fixtureMapping('modified')),
    };
    const sync = await runCli(['sync', 'sql', '--policy', policyFile], env);
    expect(sync.code).toBe(0);
    expect(summaryOf(sync.stdout)).toMatchObject({ source: 'sql', status: 'succeeded' });
  });
  afterAll(async () => {
    await source?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the rule that grants, with the values it read, and why the other rule does not', async () => {
    // person1: legal, clearance 1, editor; document 2: a research policy at level 2.
    const out = await runCli(['policy', 'explain', 'person1@example.com', 'sql:2', '--policy', policyFile], env);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('sql:1 (person1@example.com) on sql:2: GRANTED');
    expect(out.stdout).toContain('rule editors-read-policies: grants — the user holds one of the roles editor and doc.kind ("policy") == "policy" is true');
    expect(out.stdout).toContain('rule department-cleared: does not grant — user.department ("legal") == doc.department ("research") is false');
  });

  it('finds the user by the served person id or by the email in another case, as the platform names people', async () => {
    for (const ref of [personIdOf('', 'person1@example.com'), 'PERSON1@Example.COM']) {
      const out = await runCli(['policy', 'explain', ref, 'sql:2', '--policy', policyFile], env);
      expect(out.stdout).toContain('sql:1 (person1@example.com) on sql:2: GRANTED');
    }
  });

  it('says which test failed when every rule denies, reading the policy file from ACCESS_POLICIES', async () => {
    // person5: research, clearance 1, no roles; document 2: a research policy at level 2.
    const out = await runCli(['policy', 'explain', 'sql:5', 'sql:2'], { ...env, ACCESS_POLICIES: `sql=${policyFile}` });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('sql:5 (person5@example.com) on sql:2: DENIED');
    expect(out.stdout).toContain('rule department-cleared: does not grant — user.clearance (1) >= doc.level (2) is false');
    expect(out.stdout).toContain('rule editors-read-policies: does not grant — the user holds none of the roles editor (has: none)');
  });

  it('denies an inactive user whatever the rules say, and refuses unknown documents and users', async () => {
    const inactive = await runCli(['policy', 'explain', 'person6@example.com', 'sql:6', '--policy', policyFile], env);
    expect(inactive.stdout).toMatch(/sql:6 \(person6@example\.com\) on sql:6: DENIED[\s\S]*the user is inactive/);
    const unknown = await runCli(['policy', 'explain', 'person1@example.com', 'sql:999', '--policy', policyFile], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("error: no staged file has the id 'sql:999'");
    const nobody = await runCli(['policy', 'explain', 'nobody@example.com', 'sql:2', '--policy', policyFile], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stdout).toContain("error: source 'sql' has no staged user with the id or email 'nobody@example.com'");
  });

  it('warns at sync time of an attribute the policy reads that no document or user of the run has, naming the nearest one (issue 29)', async () => {
    const misspelt = path.join(dir, 'misspelt.yaml');
    fs.writeFileSync(misspelt, POLICY.replace('doc.level', 'doc.levl').replace('user.department', 'user.departement'));
    // A staging database of its own: the other tests read the first sync's.
    const out = await runCli(['sync', 'sql', '--policy', misspelt], { ...env, SQLITE_PATH: path.join(dir, 'misspelt.sqlite') });
    expect(out.code).toBe(0);
    const warnings = out.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level === 40)
      .map((l) => l.msg);
    expect(warnings.filter((m) => m.includes('doc.levl'))).toEqual([expect.stringContaining('did you mean doc.level?')]);
    expect(warnings.filter((m) => m.includes('user.departement'))).toEqual([expect.stringContaining('did you mean user.department?')]);
    expect(warnings.filter((m) => /doc\.kind|doc\.department\b|user\.clearance/.test(m))).toEqual([]);
  });

  it('policy check warns of an attribute no staged document or user has when a staged one is close, saying a full sync checks for sure (issue 29)', async () => {
    const misspelt = path.join(dir, 'check-misspelt.yaml');
    fs.writeFileSync(misspelt, POLICY.replace('doc.level', 'doc.levl'));
    const out = await runCli(['policy', 'check', misspelt], env);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`${misspelt}: 2 rule(s)`);
    expect(out.stdout).toMatch(/^warning: doc\.levl: no staged document has it; did you mean doc\.level\?/m);
    expect(out.stdout).not.toMatch(/warning: (doc\.kind|doc\.department|user\.)/);
    // Without staging to compare with, only the check.
    const bare = await runCli(['policy', 'check', misspelt], { ...env, SQLITE_PATH: path.join(dir, 'none', 'gw.sqlite') });
    expect(bare.stdout).not.toContain('warning:');
    expect(fs.existsSync(path.join(dir, 'none'))).toBe(false);
  });

  it('checks a policy file, naming the refused rule and its position', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'version: 1\nrules:\n  - name: cleared\n    allow: user.clearance => doc.level\n');
    const out = await runCli(['policy', 'check', bad], env);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`${bad}: rule 'cleared' (line 4, column 27): '=' is not supported: write '=='`);
    const good = await runCli(['policy', 'check', policyFile], env);
    expect(good.stdout).toContain('2 rule(s): department-cleared, editors-read-policies');
    const refused = await runCli(['sync', '--all', '--policy', policyFile], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--policy applies to one named adapter');
  });

  it('refuses to sync a source whose policy does not load, naming the rule, and leaves staging as it was', async () => {
    const bad = path.join(dir, 'refused.yaml');
    fs.writeFileSync(
      bad,
      "version: 1\nrules:\n  - name: cleared\n    allow: user.clearance >= doc.level\n  - name: listed\n    allow: user.roles == 'editor'\n",
    );
    const staging = new Database(env.SQLITE_PATH as string, { readonly: true });
    const state = () =>
      staging.prepare("select (select count(*) from sync_runs) as runs, (select count(*) from groups where id like 'sql:policy-%') as policyGroups").get();
    try {
      const before = state();
      expect(before).toMatchObject({ runs: 1 });
      // A source synced without its policy would lose every grant the policy gives: it is not synced at all.
      const ways: Array<[string[], Record<string, string>]> = [
        [['sync', 'sql'], { ...env, ACCESS_POLICIES: `sql=${bad}` }],
        [['sync', 'sql', '--policy', bad], env],
      ];
      for (const [args, withEnv] of ways) {
        const out = await runCli(args, withEnv);
        expect(out.code).toBe(1);
        expect(out.stdout).toContain(`sql: access policy refused — ${bad}: rule 'listed' (line 6, column 12): user.roles is a list`);
        expect(state()).toEqual(before);
      }
    } finally {
      staging.close();
    }
  });
});
