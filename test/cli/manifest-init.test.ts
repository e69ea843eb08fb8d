import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadRestManifest } from '../../src/adapters/rest';
import { buildProgramFor } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';

/** `content-gateway manifest init ...`, parsed by the real command line. */
async function init(args: string[]): Promise<{ out: string[]; code: number | undefined }> {
  const out: string[] = [];
  let code: number | undefined;
  const runtime: Runtime = {
    env: {},
    print: (line) => out.push(line),
    listen: () => Promise.reject(new Error('not in this test')),
    onShutdown: () => undefined,
    setExitCode: (c) => (code = c),
    interactive: false,
  };
  const argv = ['node', 'content-gateway', 'manifest', 'init', ...args];
  await (await buildProgramFor(runtime, argv)).parseAsync(argv);
  return { out, code };
}

describe('content-gateway manifest init', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-init-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes a commented starter manifest that passes the schema, named as asked, and says what to do next', async () => {
    const file = path.join(dir, 'sources', 'acme-wiki.yaml');
    const { out, code } = await init([file, '--name', 'acme-wiki']);
    expect(code).toBeUndefined();
    const loaded = loadRestManifest(file);
    expect(loaded.manifest.name).toBe('acme-wiki');
    expect(Object.keys(loaded.manifest.streams).sort()).toEqual(['documents', 'groups', 'users']);
    const text = fs.readFileSync(file, 'utf8');
    // Commented: every section says what it is for, and the guide is named.
    expect(text.split('\n').filter((l) => l.trim().startsWith('#')).length).toBeGreaterThan(20);
    expect(text).toContain('docs/declarative-sources.md');
    expect(text).not.toContain('<%');
    expect(out[0]).toBe(`Wrote a starter manifest to ${file}.`);
    expect(out.join('\n')).toContain(`npm run cli -- manifest check ${file}`);
  });

  it('refuses to overwrite a file, changing nothing, and exits 1', async () => {
    const file = path.join(dir, 'mine.yaml');
    fs.writeFileSync(file, 'version: 1 # my own\n');
    const { out, code } = await init([file]);
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/already exists; refusing to overwrite it/);
    expect(fs.readFileSync(file, 'utf8')).toBe('version: 1 # my own\n');
  });

  it('refuses a source name the gateway cannot use, writing nothing', async () => {
    const file = path.join(dir, 'bad.yaml');
    const { out, code } = await init([file, '--name', 'Acme Wiki']);
    expect(code).toBe(1);
    expect(out.join('\n')).toMatch(/--name: expected lower-case letters, digits and dashes/);
    expect(fs.existsSync(file)).toBe(false);
  });
});
