import fs from 'node:fs';
import path from 'node:path';
import { adapterSettingsTable } from '../../src/adapters/adapter-settings-table';
import { settingsTable } from '../../src/config/settings-table';
import { errorTable } from '../../src/errors/error-table';

const read = (file: string) => fs.readFileSync(path.join(__dirname, '../..', file), 'utf8');
const readme = read('README.md');

/** A generated table of a guide, between its `<!-- name:start -->` and `<!-- name:end -->` marks. */
function section(file: string, name: string): string {
  const m = read(file).match(new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`));
  if (!m) throw new Error(`${file} has no ${name} section`);
  return m[1] as string;
}

describe('README', () => {
  it('stays within two screens, and every guide it links to exists', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(120);
    const links = [...readme.matchAll(/\]\(((?:docs|bench|openapi)\/[^)#]+)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect([link, fs.existsSync(path.join(__dirname, '../..', link))]).toEqual([link, true]);
  });

  it('tells an operator how to check, after connecting the platform, that content is ingested and used, with the lifecycle stage of each endpoint', () => {
    expect(readme).toMatch(/^npm run cli -- usage --gateway-url \S+ --region \w+/m);
    for (const stage of ['(stable)', '(legacy;', 'deprecated']) expect([stage, readme.includes(stage)]).toEqual([stage, true]);
    for (const endpoint of ['plugin-resources/$count', '/rest/v1/messages/send', '/rest/v1beta1', '/assistant/v1'])
      expect([endpoint, readme.includes(endpoint)]).toEqual([endpoint, true]);
    const [, guide, anchor] = /\]\((docs\/operating-with-the-platform\.md)#([\w-]+)\)/.exec(readme) ?? [];
    expect(guide).toBeDefined();
    const headings = read(guide as string)
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) =>
        l
          .replace(/^#+\s*/, '')
          .toLowerCase()
          .replace(/[^\w\s-]/g, '')
          .replace(/\s+/g, '-'),
      );
    expect(headings).toContain(anchor);
  });

  it('shows the API key to the conformance harness through the environment, never as --key through npm', () => {
    for (const file of ['README.md', 'docs/conformance.md', 'docs/platform-compatibility.md', 'src/conformance/README.md']) {
      expect([file, /npm run conformance[^\n]*--key/.test(read(file))]).toEqual([file, false]);
    }
  });
});

describe('docs/settings.md', () => {
  it('shows the settings table generated from the config schema', () => {
    expect(section('docs/settings.md', 'settings')).toBe(settingsTable());
  });
});

describe('docs/endpoints.md', () => {
  it('shows the error-code table generated from the error registry', () => {
    expect(section('docs/endpoints.md', 'errors')).toBe(errorTable());
  });

  it("names the Node version package.json's engines require, as the Dockerfile's base image does", () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const [, major, minor] = /^>=(\d+)\.(\d+)$/.exec(engines) ?? [];
    expect(readme).toContain(`Node.js ${major}.${minor} or newer`);
    const bases = [...read('Dockerfile').matchAll(/^FROM node:(\d+)[-\w]*/gm)].map((m) => m[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toBe(major);
  });

  it('gives the two commands: start on the embedded default, and the whole test suite', () => {
    expect(readme).toMatch(/npm ci && npm start/);
    expect(readme).toMatch(/^npm test /m);
  });

  it('has a curl example for every endpoint of the contract', () => {
    for (const p of [
      '/v1/files"',
      '/v1/files/demo',
      '/download"',
      '/permissions"',
      '/v1/files/permissions/metadata"',
      '/v1/users"',
      '/v1/groups"',
      '/members"',
    ]) {
      expect(readme).toContain(p);
    }
  });
});

describe('docs/adapters.md', () => {
  it('lists every registered adapter setting, generated from the registry', () => {
    expect(section('docs/adapters.md', 'adapters')).toBe(adapterSettingsTable());
  });
});
