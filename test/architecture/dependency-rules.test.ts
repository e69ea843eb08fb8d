import { importsOf, migrationFiles, sourceFiles, type Import } from './source-graph';

/**
 * The dependency rules of DESIGN.md §2, over the import graph of `src/` and `migrations/` as the
 * TypeScript parser reads it (imports, re-exports, `import()` and `require()`). A room is a
 * top-level folder of `src/`; the adapter contract (the files directly in `src/adapters/`), the
 * registry that lists the adapters, and each adapter are rooms of their own; so is each folder of
 * `src/staging/` (`staging/database`, …), which other rooms' rules name together as `staging`.
 * Migrations are one room; any other project file outside `src/` (tests, the kit) is `outside`.
 * The kit's own rules are in kit-boundary.test.ts.
 */
function roomOf(file: string): string {
  if (file.startsWith('../migrations/')) return 'migrations';
  if (file.startsWith('../')) return 'outside';
  const parts = file.split('/');
  if (parts.length === 1) return parts[0]!.replace(/\.ts$/, '');
  if (parts[0] === 'adapters') {
    if (parts.length === 2) return ['adapter-registry.ts', 'adapter-settings-table.ts'].includes(parts[1]!) ? 'adapters/registry' : 'adapters/contract';
    return `adapter:${parts[1]}`;
  }
  if (parts[0] === 'staging' && parts.length > 2) return `staging/${parts[1]}`;
  return parts[0]!;
}

const ANY = '*';
/** What each room may import besides itself: rooms (`staging` names its folders together), or single files (`room/file.ts`). */
const RULES: Record<string, readonly string[]> = {
  // The composition roots, and the public entry (src/index.ts: what the package exports).
  main: [ANY],
  cli: [ANY],
  demo: [ANY],
  index: [ANY],
  http: ['staging', 'wire', 'blobs', 'odata', 'errors', 'config', 'lib', 'logging'],
  odata: ['staging', 'errors', 'lib'],
  // The operator console reads staging (and the sync's records), checks its admin key as /v1 checks
  // API keys; it never starts a sync itself: the composition root hands it a way to ask for one.
  console: [
    'staging',
    'sync',
    'policies',
    'errors',
    'config:types',
    'lib',
    'logging',
    'http/security/api-key-verifier.ts',
    // The access explorer answers by the platform's rules (which entries count), as conformance does; blob health reads the store.
    'conformance/access/effective-access.ts',
    'blobs:types',
  ],
  sync: ['adapters/contract', 'staging', 'wire', 'blobs', 'policies', 'lib', 'logging'],
  policies: ['adapters/contract:types', 'lib', 'errors'],
  // Staging, bottom up: opening the database (the row types are the wire's columns); the read
  // engine over it; the sync's write path, which stores each file's list JSON as it writes it, so
  // it may build the wire shape; the repositories over all three.
  'staging/database': ['migrations', 'wire:types', 'lib', 'logging'],
  'staging/read-path': ['staging/database', 'lib'],
  'staging/write-path': ['staging/database', 'wire', 'lib'],
  'staging/repositories': ['staging/database', 'staging/read-path', 'staging/write-path', 'wire', 'lib'],
  // The contract's JSON shapes, pure: served by http, pre-serialised by staging.
  wire: ['lib'],
  blobs: ['lib', 'logging'],
  // The contract's SourceErrors are the outbound client's typed errors under the adapters' names.
  'adapters/contract': ['outbound-http', 'lib', 'logging'],
  // The HTTP client every outbound call uses (adapters, platform clients): generic, domain-free.
  'outbound-http': ['lib', 'errors', 'logging'],
  'adapters/registry': ['adapters/contract', 'adapter:*', 'lib'],
  'adapter:*': ['adapters/contract', 'outbound-http', 'lib', 'logging'],
  scaffold: ['adapters/contract', 'lib'],
  // Over HTTP only, through the outbound client: no gateway internals.
  conformance: ['outbound-http', 'lib', 'logging'],
  platform: ['outbound-http', 'lib', 'logging'],
  lib: [],
  errors: [],
  config: [],
  logging: [],
  // Frozen: a migration does today what it did when it shipped, so it imports no application code.
  migrations: [],
};

function rulesOf(room: string): readonly string[] | undefined {
  return RULES[room] ?? (room.startsWith('adapter:') ? RULES['adapter:*'] : undefined);
}

function allowed(imp: Import): boolean {
  const from = roomOf(imp.from);
  const to = roomOf(imp.to);
  if (from === to) return true;
  const rules = rulesOf(from) ?? [];
  const names = (room: string): boolean => room === to || to.startsWith(`${room}/`);
  return rules.some((rule) => {
    if (rule === ANY) return true;
    if (rule.endsWith('.ts')) return imp.to === rule;
    if (rule.endsWith(':types')) return imp.typeOnly && names(rule.slice(0, -':types'.length));
    if (rule === 'adapter:*') return to.startsWith('adapter:');
    return names(rule);
  });
}

const files = [...sourceFiles(), ...migrationFiles()];
const imports = files.flatMap((file) => importsOf(file)).filter((imp) => imp.local);

describe('DESIGN.md §2 dependency rules', () => {
  it('knows the room of every file under src/ and migrations/', () => {
    expect(files.map((f) => roomOf(f)).filter((room) => rulesOf(room) === undefined)).toEqual([]);
  });

  it('holds for every import of src/ and migrations/, with no exception', () => {
    const broken = imports.filter((imp) => !allowed(imp)).map((imp) => `${imp.from} -> ${imp.to} (${roomOf(imp.from)} may not import ${roomOf(imp.to)})`);
    expect(broken).toEqual([]);
  });

  it('would catch a broken rule (the check is not vacuous)', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(allowed({ from: 'http/x.ts', to: 'sync/run-sync.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'adapters/filesystem/x.ts', to: 'staging/database/create-db.ts', local: true, typeOnly: true })).toBe(false);
    expect(allowed({ from: 'adapters/filesystem/x.ts', to: 'adapters/sql/index.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'policies/x.ts', to: 'adapters/adapter.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'policies/x.ts', to: 'adapters/adapter.ts', local: true, typeOnly: true })).toBe(true);
    expect(allowed({ from: 'lib/x.ts', to: 'errors/gateway-error.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'outbound-http/x.ts', to: 'adapters/source-error.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'platform/x.ts', to: 'adapters/source-error.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'platform/x.ts', to: 'outbound-http/remote-error.ts', local: true, typeOnly: false })).toBe(true);
    expect(allowed({ from: 'conformance/x.ts', to: 'http/create-app.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'wire/x.ts', to: 'staging/database/row-types.ts', local: true, typeOnly: true })).toBe(false);
    expect(files).toContain('../migrations/20261125020000_serve_people.ts');
    expect(allowed({ from: '../migrations/x.ts', to: 'staging/write-path/people.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: '../migrations/x.ts', to: 'lib/chunks.ts', local: true, typeOnly: true })).toBe(false);
    expect(allowed({ from: '../migrations/x.ts', to: '../test/helpers/x.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: '../migrations/index.ts', to: '../migrations/x.ts', local: true, typeOnly: false })).toBe(true);
    expect(allowed({ from: 'staging/database/x.ts', to: '../migrations/index.ts', local: true, typeOnly: false })).toBe(true);
    expect(allowed({ from: 'staging/read-path/x.ts', to: '../migrations/index.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'http/x.ts', to: 'staging/read-path/page-query.ts', local: true, typeOnly: true })).toBe(true);
    expect(allowed({ from: 'staging/database/x.ts', to: 'staging/read-path/page-query.ts', local: true, typeOnly: true })).toBe(false);
    expect(allowed({ from: 'staging/read-path/x.ts', to: 'staging/repositories/files-repository.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'staging/write-path/x.ts', to: 'staging/read-path/query-page.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'staging/repositories/x.ts', to: 'staging/write-path/person-id.ts', local: true, typeOnly: false })).toBe(true);
    expect(allowed({ from: 'staging/x.ts', to: 'staging/database/create-db.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'console/x.ts', to: 'cli/sync-queue/sync-source.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'console/x.ts', to: 'http/create-app.ts', local: true, typeOnly: false })).toBe(false);
    expect(allowed({ from: 'console/x.ts', to: 'http/security/api-key-verifier.ts', local: true, typeOnly: false })).toBe(true);
  });
});

/** Strongly connected components of more than one file (Tarjan), each sorted. */
function cycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w);
        component.push(w);
        if (w === v) break;
      }
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return out;
}

describe('the import graph of src/ and migrations/', () => {
  it('has no circles, of values or of types', () => {
    const edges = new Map<string, string[]>();
    for (const imp of imports) edges.set(imp.from, [...(edges.get(imp.from) ?? []), imp.to]);
    expect(cycles(edges).map((c) => c.join(' <-> '))).toEqual([]);
  });

  it('finds a circle where there is one', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b', 'c']]);
  });
});
