import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../e2e/cli-process';

/**
 * A sync's failed items are printed with their reasons, and `runs` shows recent runs and what is
 * still failing (issue 29, point 2): a sidecar naming a user the directory does not list fails that
 * file, and the operator sees which file and why without reading the database.
 */
jest.setTimeout(120_000);

describe('failed items are visible: sync prints them, runs lists them', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-runs-'));
    const tree = path.join(dir, 'tree');
    fs.mkdirSync(path.join(tree, 'team'), { recursive: true });
    fs.writeFileSync(path.join(tree, '_directory.yaml'), 'users:\n  - { id: ana, email: ana@corp.example, full_name: Ana, active: true }\ngroups: []\n');
    fs.writeFileSync(path.join(tree, 'welcome.html'), '<p>Welcome</p>');
    fs.writeFileSync(path.join(tree, 'team', 'plan.html'), '<p>Plan</p>');
    fs.writeFileSync(path.join(tree, 'team', '_access.yaml'), 'users: [ana]\nfiles:\n  plan.html: { users: [ghost] }\n');
    env = { SQLITE_PATH: path.join(dir, 'gw.sqlite'), BLOB_DIR: path.join(dir, 'blobs'), DEMO_CONTENT: 'off', FILESYSTEM_ROOT: tree };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sync names the failed file and its reason under its summary', async () => {
    const sync = await runCli(['sync', 'filesystem'], env);
    expect(sync.stdout).toMatch(/filesystem: full sync succeeded: files added 1, .* failed 1;/);
    expect(sync.stdout).toMatch(/^ {2}failed: .*team\/plan\.html.*ghost/m);
    expect(sync.stdout).toMatch(/failed items are retried on every run/);
  });

  it('runs lists the run and, under "Still failing", the file and why; --json gives the same to scripts', async () => {
    await runCli(['sync', 'filesystem'], env);
    const runs = await runCli(['runs'], env);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(/^ {2}#\d+ {2}\S+ {2}filesystem {2}full {2}succeeded {2}[\d.]+ s {2}added 1, changed 0, deleted 0, failed 1$/m);
    expect(runs.stdout).toMatch(
      /Still failing:\n {2}filesystem: 1 item\(s\) failed in its last run \(#\d+\), retried on the next:\n {4}.*team\/plan\.html.*ghost/,
    );
    const json = JSON.parse((await runCli(['runs', 'filesystem', '--json'], env)).stdout) as {
      runs: unknown[];
      failing: Array<{ source: string; failed: number; failures: string[] }>;
    };
    expect(json.runs).toHaveLength(1);
    expect(json.failing).toEqual([expect.objectContaining({ source: 'filesystem', failed: 1, failures: [expect.stringMatching(/team\/plan\.html.*ghost/)] })]);
  });

  it('says when nothing is failing', async () => {
    fs.writeFileSync(path.join(env.FILESYSTEM_ROOT as string, 'team', '_access.yaml'), 'users: [ana]\n');
    await runCli(['sync', 'filesystem'], env);
    const runs = await runCli(['runs'], env);
    expect(runs.stdout).toContain("Nothing is failing: every source's last run succeeded with no failed item.");
  });

  it("runs --check (the compose sync worker's health check): unhealthy until a run finishes, healthy once every source's last run succeeded, unhealthy naming the source when one failed", async () => {
    const before = await runCli(['runs', '--check'], env);
    expect(before.code).toBe(1);
    expect(before.stdout + before.stderr).toMatch(/no sync run has finished yet/);
    await runCli(['sync', 'filesystem'], env);
    // A run with a failed item still succeeded: what it loaded is served.
    const after = await runCli(['runs', '--check'], env);
    expect(after.stdout).toMatch(/^ok: filesystem's last run \(#\d+\) succeeded/m);
    expect(after.code).toBe(0);
    fs.rmSync(path.join(env.FILESYSTEM_ROOT as string, '_directory.yaml'));
    await runCli(['sync', 'filesystem'], env);
    const failed = await runCli(['runs', '--check'], env);
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).toMatch(/filesystem's last run \(#\d+\) failed: .*_directory/);
  });
});
