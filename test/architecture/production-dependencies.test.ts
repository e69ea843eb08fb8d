import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { importsOf, sourceFiles } from './source-graph';

/**
 * The production build (tsconfig.build.json: src/ minus its excludes) runs with the production
 * dependencies only (the image prunes the dev ones), so every package it imports for its values
 * must be listed under `dependencies`, not found there by luck as another package's dependency.
 */
const ROOT = path.join(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
const build = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { exclude?: string[] };
const excluded = new Set((build.exclude ?? []).map((e) => e.replace(/^src\//, '')));

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtinModules.includes(packageOf(specifier));

describe('production dependencies', () => {
  it('lists under dependencies every package the built program imports (types aside)', () => {
    const packages = sourceFiles()
      .filter((file) => !excluded.has(file))
      .flatMap((file) => importsOf(file))
      .filter((i) => !i.local && !i.typeOnly && !isBuiltin(i.to));
    // The walk found the build's imports (an empty one would pass the check below).
    expect(['knex', 'express', 'pino'].filter((p) => !packages.some((i) => packageOf(i.to) === p))).toEqual([]);
    const missing = packages.filter((i) => !(packageOf(i.to) in pkg.dependencies)).map((i) => `${i.from} imports ${i.to}`);
    expect(missing).toEqual([]);
  });
});
