import { builtinModules } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { importsOf, SRC, sourceFiles } from './source-graph';

/**
 * The product and its verification kit live apart (DESIGN.md §2): the kit (kit/, a workspace
 * package of its own) imports the gateway only through the entry points the product's
 * package.json exports, and only packages it declares itself; the product never imports the kit,
 * and its production dependencies hold none of the libraries only the kit uses.
 */
const ROOT = path.join(__dirname, '../..');
const KIT = path.join(ROOT, 'kit');
type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; exports?: Record<string, unknown> };
const readManifest = (dir: string): Manifest => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
const product = readManifest(ROOT);
const kit = readManifest(KIT);

/** `content-gateway`, `content-gateway/lib`, …: the specifiers the product's `exports` allow. */
const ENTRY_POINTS = new Set(Object.keys(product.exports ?? {}).map((key) => (key === '.' ? 'content-gateway' : `content-gateway/${key.slice(2)}`)));

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}
const isBuiltin = (specifier: string): boolean => specifier.startsWith('node:') || builtinModules.includes(packageOf(specifier));

/** Every TypeScript file of the kit, relative to the repository root. */
function kitFiles(dir = KIT): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.name !== 'node_modules' && e.name !== 'results')
    .flatMap((e) => (e.isDirectory() ? kitFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.relative(ROOT, path.join(dir, e.name))] : []));
}

interface KitImport {
  from: string;
  /** A package specifier as written, or the file a local import resolves to (relative to the repository). */
  specifier: string;
  local: boolean;
}

function kitImports(file: string): KitImport[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  // importsOf names files relative to src/; a local import comes back as the file it resolves to.
  return importsOf(path.relative(SRC, path.join(ROOT, file)), source).map((imp) => ({
    from: file,
    specifier: imp.local ? path.relative(ROOT, path.join(SRC, imp.to)) : imp.to,
    local: imp.local,
  }));
}

/**
 * The one file outside kit/ the benchmarks import by path: the staging writer the tests and the
 * benchmarks share (issue 28 c: it is no part of the product, which stages only through syncs).
 * It writes staging rows directly, so it is the kit's one way into the product's internals.
 */
const SHARED_TEST_HELPERS = new Set([path.join('test', 'helpers', 'staging-writer.ts')]);

/** Why an import of the kit breaks the boundary, or undefined when it holds. */
function violation(imp: KitImport): string | undefined {
  const { specifier } = imp;
  if (imp.local && SHARED_TEST_HELPERS.has(specifier) && imp.from.startsWith(`kit${path.sep}bench${path.sep}`)) return undefined;
  if (imp.local) return specifier.startsWith(`kit${path.sep}`) ? undefined : 'reaches outside kit/ by path';
  if (packageOf(specifier) === 'content-gateway') return ENTRY_POINTS.has(specifier) ? undefined : 'not an entry point the product exports';
  if (isBuiltin(specifier)) return undefined;
  return packageOf(specifier) in { ...kit.dependencies, ...kit.devDependencies } ? undefined : 'a package kit/package.json does not declare';
}

/** The outside world's mocks may use only the product's generic helpers (the platform simulator also its crawler). */
function mockViolation(imp: KitImport): string | undefined {
  const mock = /^kit\/src\/mocks\/([^/]+)\//.exec(imp.from)?.[1];
  if (!mock || !imp.specifier.startsWith('content-gateway')) return undefined;
  const allowed =
    mock === 'platform'
      ? ['content-gateway/lib', 'content-gateway/logging', 'content-gateway/conformance']
      : ['content-gateway/lib', 'content-gateway/logging'];
  return allowed.includes(imp.specifier) ? undefined : `the ${mock} mock stands for the outside world: only ${allowed.join(', ')}`;
}

describe('the verification kit imports the gateway only through what the product exports', () => {
  const files = kitFiles();
  const imports = files.flatMap((file) => kitImports(file));

  it('finds the kit (the check is not vacuous)', () => {
    expect(files.length).toBeGreaterThan(150);
    expect(imports.filter((i) => i.specifier.startsWith('content-gateway')).length).toBeGreaterThan(30);
    expect(violation({ from: 'kit/bench/x.ts', specifier: 'src/staging/database/create-db.ts', local: true })).toBeDefined();
    expect(violation({ from: 'kit/src/x.ts', specifier: 'test/helpers/staging-writer.ts', local: true })).toBeDefined();
    expect(violation({ from: 'kit/bench/x.ts', specifier: 'test/helpers/test-gateway.ts', local: true })).toBeDefined();
    expect(violation({ from: 'kit/bench/x.ts', specifier: 'content-gateway/staging/database/create-db', local: false })).toBeDefined();
    expect(violation({ from: 'kit/bench/x.ts', specifier: 'left-pad', local: false })).toBeDefined();
    expect(mockViolation({ from: 'kit/src/mocks/work-management/x.ts', specifier: 'content-gateway', local: false })).toBeDefined();
  });

  it('holds for every import of kit/', () => {
    const broken = imports.flatMap((imp) => [violation(imp), mockViolation(imp)].filter(Boolean).map((why) => `${imp.from} -> ${imp.specifier}: ${why}`));
    expect(broken).toEqual([]);
  });

  it('every entry point the product exports is built from a module of src/', () => {
    const missing = [...ENTRY_POINTS].filter(
      (entry) => !fs.existsSync(path.join(ROOT, 'src', entry === 'content-gateway' ? 'index.ts' : `${entry.slice('content-gateway/'.length)}/index.ts`)),
    );
    expect(missing).toEqual([]);
  });
});

describe('the product does not depend on the kit', () => {
  it('no file of src/ imports the kit', () => {
    const reaching = sourceFiles()
      .flatMap((file) => importsOf(file))
      .filter((imp) => (imp.local ? imp.to.startsWith('../kit/') : imp.to.startsWith('@content-gateway/kit')))
      .map((imp) => `${imp.from} -> ${imp.to}`);
    expect(reaching).toEqual([]);
  });

  it("lists none of the kit's own libraries as a production dependency", () => {
    const productImports = new Set(
      sourceFiles()
        .flatMap((file) => importsOf(file))
        .filter((i) => !i.local)
        .map((i) => packageOf(i.to)),
    );
    const kitOnly = Object.keys(kit.devDependencies ?? {}).filter((name) => !productImports.has(name) && !name.startsWith('@types/'));
    expect(kitOnly).toEqual(expect.arrayContaining(['pdf-lib', 'jszip', 'mammoth', 'minisearch']));
    expect(kitOnly.filter((name) => name in (product.dependencies ?? {}))).toEqual([]);
  });

  it('the lock file installs none of them with `npm ci --omit=dev` (each is marked dev)', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const productImports = new Set(
      sourceFiles()
        .flatMap((file) => importsOf(file))
        .filter((i) => !i.local)
        .map((i) => packageOf(i.to)),
    );
    const kitOnly = Object.keys(kit.devDependencies ?? {}).filter((name) => !productImports.has(name) && !(name in (product.dependencies ?? {})));
    expect(kitOnly.map((name) => ({ name, dev: lock.packages[`node_modules/${name}`]?.dev === true }))).toEqual(kitOnly.map((name) => ({ name, dev: true })));
  });
});
