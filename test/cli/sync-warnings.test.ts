import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../e2e/cli-process';

/**
 * Issue 29, point 7: silent misconfiguration of the filesystem adapter is said at sync time, once
 * a run, with a count, the first paths and the setting (or file) that fixes it.
 */
jest.setTimeout(60_000);

const logsOf = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('sync filesystem: warnings of what nobody can use', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-warn-'));
    const root = path.join(dir, 'tree');
    fs.mkdirSync(path.join(root, 'team'), { recursive: true });
    fs.writeFileSync(path.join(root, '_directory.yaml'), 'users:\n  - { id: ana, email: ana@example.com, full_name: Ana, active: true }\ngroups: []\n');
    fs.writeFileSync(path.join(root, 'loose.md'), '# Loose\n');
    fs.writeFileSync(path.join(root, 'other.md'), '# Other\n');
    fs.writeFileSync(path.join(root, 'team', '_access.yaml'), 'users: [ana]\n');
    fs.writeFileSync(path.join(root, 'team', 'notes.md'), '# Notes\n');
    env = { SQLITE_PATH: path.join(dir, 'gw.sqlite'), BLOB_DIR: path.join(dir, 'blobs'), FILESYSTEM_ROOT: root, LOG_LEVEL: 'warn' };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('warns once of file:// external URLs (naming FILESYSTEM_BASE_URL) and of files no sidecar covers (count and first paths)', async () => {
    const out = await runCli(['sync', 'filesystem'], env);
    expect(out.code).toBe(0);
    const warnings = logsOf(out.stdout).filter((l) => l.level === 40);
    const fileUrls = warnings.filter((w) => String(w.msg).includes('file://'));
    expect(fileUrls).toHaveLength(1);
    expect(fileUrls[0]).toMatchObject({ files: 3, setting: 'FILESYSTEM_BASE_URL' });
    expect(String(fileUrls[0]?.msg)).toContain('set FILESYSTEM_BASE_URL');
    const uncovered = warnings.filter((w) => String(w.msg).includes('no _access.yaml'));
    expect(uncovered).toHaveLength(1);
    expect(uncovered[0]).toMatchObject({ files: 2, first: ['loose.md', 'other.md'] });
    expect(String(uncovered[0]?.msg)).toMatch(/readable by nobody/);
  });

  it('says nothing when a base URL is set and a sidecar covers every file', async () => {
    fs.writeFileSync(path.join(env.FILESYSTEM_ROOT ?? '', '_access.yaml'), 'public: true\n');
    const out = await runCli(['sync', 'filesystem'], { ...env, FILESYSTEM_BASE_URL: 'https://intranet.example.com/kb' });
    expect(out.code).toBe(0);
    expect(logsOf(out.stdout).filter((l) => l.level === 40)).toEqual([]);
  });
});
