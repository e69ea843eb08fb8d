import fs from 'node:fs';
import path from 'node:path';
import { adapterSettingsTable } from '../../src/adapters/adapter-settings-table';
import { settingsTable } from '../../src/config/settings-table';
import { errorTable } from '../../src/errors/error-table';

const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

function section(name: string): string {
  const m = readme.match(new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`));
  if (!m) throw new Error(`README has no ${name} section`);
  return m[1] as string;
}

describe('README', () => {
  it('shows the settings table generated from the config schema', () => {
    expect(section('settings')).toBe(settingsTable());
  });

  it('shows the error-code table generated from the error registry', () => {
    expect(section('errors')).toBe(errorTable());
  });

  it('gives the two commands: start on the embedded default, and the whole test suite', () => {
    expect(readme).toMatch(/npm ci && npm start/);
    expect(readme).toMatch(/^npm test /m);
  });

  it('has a curl example for every endpoint of the contract', () => {
    for (const p of ['/v1/files"', '/v1/files/demo', '/download"', '/permissions"', '/v1/files/permissions/metadata"', '/v1/users"', '/v1/groups"', '/members"']) {
      expect(readme).toContain(p);
    }
  });
});

describe('README adapters', () => {
  it('lists every registered adapter setting, generated from the registry', () => {
    const m = readme.match(/<!-- adapters:start -->\n([\s\S]*?)\n<!-- adapters:end -->/);
    expect(m?.[1]).toBe(adapterSettingsTable());
  });
});
