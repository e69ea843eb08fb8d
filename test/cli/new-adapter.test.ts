import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import pino from 'pino';
import type { AdapterContext, IncrementalAdapter, SyncEvent } from '../../src/adapters/adapter';
import { ENTRIES_MARKER, IMPORTS_MARKER, registerAdapter } from '../../src/scaffold/register-adapter';
import { ADAPTER_TEMPLATE_FILES, adapterNames, renderAdapterTemplates, renderTemplate } from '../../src/scaffold/render-adapter-template';
import { scaffoldAdapter } from '../../src/scaffold/scaffold-adapter';
import { ScaffoldError } from '../../src/scaffold/scaffold-error';
import { useBuiltProgram } from '../helpers/built-program';
import { contentBytes } from '../helpers/content-bytes';

const ROOT = path.join(__dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
const TEMPLATES = path.join(ROOT, 'templates/adapter');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion (a clean environment: only what the child needs). */
function run(command: string, args: string[], cwd: string): Promise<Ran> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), LOG_LEVEL: 'warn' };
  if (process.env.TEST_DATABASE_URL) env.TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The CLI through its front door: `content-gateway new-adapter ...` as `npm run cli` runs it. */
const MAIN = useBuiltProgram();
const newAdapter = (...args: string[]) => run(process.execPath, [MAIN, 'new-adapter', ...args], ROOT);

/**
 * The smallest copy of this project a scaffold can be checked in: the sources, migrations and
 * configs, the contract suite with the helpers it needs, and a link to the installed packages.
 */
function copyProject(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-new-adapter-'));
  for (const entry of [
    'src',
    'migrations',
    'tsconfig.json',
    'tsconfig.build.json',
    'package.json',
    'jest.config.js',
    'test/setup',
    'test/helpers/test-databases.ts',
    'test/helpers/content-bytes.ts',
    'test/contract/describe-adapter-contract.ts',
  ]) {
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Every file under `dir`, relative, sorted. */
function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

describe('new-adapter: names and rendering (pure)', () => {
  it('derives every case variant from a valid name', () => {
    expect(adapterNames('acme-wiki')).toEqual({ name: 'acme-wiki', Name: 'AcmeWiki', camelName: 'acmeWiki', CONSTANT_NAME: 'ACME_WIKI', title: 'Acme Wiki' });
    expect(adapterNames('crm')).toEqual({ name: 'crm', Name: 'Crm', camelName: 'crm', CONSTANT_NAME: 'CRM', title: 'Crm' });
    expect(adapterNames('jira2-cloud-eu')).toMatchObject({ Name: 'Jira2CloudEu', camelName: 'jira2CloudEu', CONSTANT_NAME: 'JIRA2_CLOUD_EU' });
  });

  it.each(['', 'Acme', '1acme', 'acme_wiki', 'acme wiki', 'acme-', 'ac--me', '-acme', 'a'.repeat(33), 'acme/../x'])(
    'refuses the name %j with a ScaffoldError that says what is allowed',
    (name) => {
      expect(() => adapterNames(name)).toThrow(ScaffoldError);
      expect(() => adapterNames(name)).toThrow(/not a valid adapter name/);
    },
  );

  it('interpolates <%= key %> only, leaving template literals alone, and refuses unknown keys or other syntax', () => {
    const names = adapterNames('acme-wiki');
    expect(renderTemplate('const <%= camelName %> = `${x}`; // <%=name%>', names)).toBe('const acmeWiki = `${x}`; // acme-wiki');
    expect(() => renderTemplate('<%= nmae %>', names, 'x.tmpl')).toThrow(/x\.tmpl: unknown placeholder <%= nmae %>/);
    expect(() => renderTemplate('<% if (a) { %>', names, 'x.tmpl')).toThrow(/x\.tmpl: unsupported template syntax/);
  });

  it('knows every template in templates/adapter, and renders each without leftovers', () => {
    const onDisk = fs.readdirSync(TEMPLATES).sort();
    expect(onDisk.every((f) => f.endsWith('.tmpl'))).toBe(true);
    expect(ADAPTER_TEMPLATE_FILES.map((t) => t.template).sort()).toEqual(onDisk);
    const templates = new Map(onDisk.map((f) => [f, fs.readFileSync(path.join(TEMPLATES, f), 'utf8')]));
    const files = renderAdapterTemplates(templates, adapterNames('acme-wiki'));
    expect(files.map((f) => f.path).sort()).toEqual([
      'src/adapters/acme-wiki/README.md',
      'src/adapters/acme-wiki/acme-wiki-adapter-factory.ts',
      'src/adapters/acme-wiki/acme-wiki-adapter.ts',
      'src/adapters/acme-wiki/acme-wiki-client.ts',
      'src/adapters/acme-wiki/acme-wiki-config.ts',
      'src/adapters/acme-wiki/acme-wiki-example-source.ts',
      'src/adapters/acme-wiki/acme-wiki-mapping.ts',
      'src/adapters/acme-wiki/index.ts',
      'test/contract/acme-wiki.contract.test.ts',
    ]);
    for (const file of files) expect({ file: file.path, leftovers: file.content.match(/<%|%>/g) }).toEqual({ file: file.path, leftovers: null });
  });

  it('registers a factory at the markers, idempotently, and refuses a registry without them', () => {
    const registry = [
      'import type { AdapterFactory } from "./adapter-factory";',
      IMPORTS_MARKER,
      "import { fsAdapterFactory } from './fs';",
      '',
      'export const adapterFactories = [',
      '  fsAdapterFactory,',
      `  ${ENTRIES_MARKER}`,
      '];',
      '',
    ].join('\n');
    const once = registerAdapter(registry, adapterNames('acme-wiki'));
    expect(once.changed).toBe(true);
    expect(once.text).toBe(
      [
        'import type { AdapterFactory } from "./adapter-factory";',
        IMPORTS_MARKER,
        "import { fsAdapterFactory } from './fs';",
        "import { acmeWikiAdapterFactory } from './acme-wiki/acme-wiki-adapter-factory';",
        '',
        'export const adapterFactories = [',
        '  fsAdapterFactory,',
        '  acmeWikiAdapterFactory,',
        `  ${ENTRIES_MARKER}`,
        '];',
        '',
      ].join('\n'),
    );
    expect(registerAdapter(once.text, adapterNames('acme-wiki'))).toEqual({ text: once.text, changed: false });
    expect(() => registerAdapter(registry.replace(ENTRIES_MARKER, ''), adapterNames('acme-wiki'))).toThrow(
      /must contain the line "\/\/ <new-adapter:entries>" exactly once \(found 0\)/,
    );
    expect(() => registerAdapter(`${registry}\n${IMPORTS_MARKER}\n`, adapterNames('acme-wiki'))).toThrow(ScaffoldError);
  });
});

// A name of its own, not the guide's `acme-wiki`: a forker who followed the guide has that adapter
// in the project already, and the copy below would hold it too.
describe('content-gateway new-adapter (in a copy of the project)', () => {
  let project: string;
  let created: Ran;
  let registryBefore: string;

  beforeAll(async () => {
    project = copyProject();
    registryBefore = fs.readFileSync(path.join(project, 'src/adapters/adapter-registry.ts'), 'utf8');
    created = await newAdapter('acme-scaffold-check', '--root', project);
  });
  afterAll(() => {
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('renders the adapter and its contract test, registers the factory at the markers, and prints next steps', () => {
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(listFiles(path.join(project, 'src/adapters/acme-scaffold-check'))).toEqual([
      'README.md',
      'acme-scaffold-check-adapter-factory.ts',
      'acme-scaffold-check-adapter.ts',
      'acme-scaffold-check-client.ts',
      'acme-scaffold-check-config.ts',
      'acme-scaffold-check-example-source.ts',
      'acme-scaffold-check-mapping.ts',
      'index.ts',
    ]);
    expect(fs.existsSync(path.join(project, 'test/contract/acme-scaffold-check.contract.test.ts'))).toBe(true);
    const registry = fs.readFileSync(path.join(project, 'src/adapters/adapter-registry.ts'), 'utf8');
    expect(registry).toBe(registerAdapter(registryBefore, adapterNames('acme-scaffold-check')).text);
    expect(registry).toMatch(/^import \{ acmeScaffoldCheckAdapterFactory \} from '\.\/acme-scaffold-check\/acme-scaffold-check-adapter-factory';$/m);
    expect(registry).toMatch(/^ {2}acmeScaffoldCheckAdapterFactory,\n {2}\/\/ <new-adapter:entries>$/m);
    expect(created.stdout).toContain('src/adapters/acme-scaffold-check/acme-scaffold-check-adapter.ts');
    expect(created.stdout).toContain('Registered acmeScaffoldCheckAdapterFactory in src/adapters/adapter-registry.ts');
    expect(created.stdout).toMatch(/Next steps:[\s\S]*npx jest test\/contract\/acme-scaffold-check\.contract\.test\.ts[\s\S]*ACME_SCAFFOLD_CHECK_BASE_URL/);
    // A forker is sent to the example adapter, which reads in five minutes, before the scaffold.
    expect(created.stdout).toMatch(/Next steps:[\s\S]*Read src\/adapters\/example-wiki\/ [\s\S]*acme-scaffold-check\/README\.md/);
    // Manifests first: a REST API may need no adapter at all.
    expect(created.stdout).toContain('A REST API? A manifest may need no code at all: npm run cli -- manifest init sources/acme-scaffold-check.yaml');
  });

  it('refuses an existing adapter folder and an invalid name, with a clear message, changing nothing', async () => {
    const before = { files: listFiles(project), registry: fs.readFileSync(path.join(project, 'src/adapters/adapter-registry.ts'), 'utf8') };
    const again = await newAdapter('acme-scaffold-check', '--root', project);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: src\/adapters\/acme-scaffold-check\/ already exists in .*: pick another name, or remove that folder first\.\n$/);
    const invalid = await newAdapter('Acme_Wiki', '--root', project);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: "Acme_Wiki" is not a valid adapter name: use 1 to 32 lower-case letters, digits and dashes/);
    expect({ files: listFiles(project), registry: fs.readFileSync(path.join(project, 'src/adapters/adapter-registry.ts'), 'utf8') }).toEqual(before);
  });

  it('refuses a name that clashes with a module beside the adapters, and a registry without markers, writing nothing', async () => {
    await expect(scaffoldAdapter({ name: 'adapter-registry', root: project, templatesDir: TEMPLATES })).rejects.toThrow(
      /would clash with src\/adapters\/adapter-registry\.ts/,
    );
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-new-adapter-bare-'));
    try {
      fs.mkdirSync(path.join(bare, 'src/adapters'), { recursive: true });
      fs.writeFileSync(path.join(bare, 'src/adapters/adapter-registry.ts'), 'export const adapterFactories = [];\n');
      await expect(scaffoldAdapter({ name: 'crm', root: bare, templatesDir: TEMPLATES })).rejects.toThrow(
        /adapter-registry\.ts must contain the line "\/\/ <new-adapter:imports>"/,
      );
      expect(listFiles(bare)).toEqual(['src/adapters/adapter-registry.ts']);
      await expect(scaffoldAdapter({ name: 'crm', root: path.join(bare, 'nowhere'), templatesDir: TEMPLATES })).rejects.toThrow(
        /is .* a content-gateway project\? Pass its folder with --root/,
      );
      fs.appendFileSync(path.join(bare, 'src/adapters/adapter-registry.ts'), `${IMPORTS_MARKER}\n${ENTRIES_MARKER}\n`);
      await expect(scaffoldAdapter({ name: 'crm', root: bare, templatesDir: path.join(bare, 'templates') })).rejects.toThrow(
        /templates.*not found: new-adapter runs from a checkout/,
      );
      expect(listFiles(bare)).toEqual(['src/adapters/adapter-registry.ts']);
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('its printed sync step works as printed in the project (the example dataset, before any BASE_URL is set)', async () => {
    const step = /^\s+3\. .*then: (npm run cli -- sync acme-scaffold-check)$/m.exec(created.stdout)?.[1];
    expect(step).toBe('npm run cli -- sync acme-scaffold-check');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-new-adapter-sync-'));
    try {
      const synced = await new Promise<Ran>((resolve, reject) => {
        const child = spawn('npm', ['run', '-s', 'cli', '--', 'sync', 'acme-scaffold-check'], {
          cwd: project,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: process.env.HOME ?? os.tmpdir(),
            LOG_LEVEL: 'warn',
            SQLITE_PATH: path.join(dataDir, 'gw.sqlite'),
            BLOB_DIR: path.join(dataDir, 'blobs'),
            DEMO_CONTENT: 'off',
          },
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect({ code: synced.code, stderr: synced.stderr }).toEqual({ code: 0, stderr: '' });
      expect(synced.stdout).toMatch(/^acme-scaffold-check: full sync succeeded: files added [1-9]\d*/m);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    // `npm run cli` builds the copy first (a whole compile of src/, incremental afterwards).
  }, 240_000);

  it('type-checks as generated (registry included), and the adapter passes the shared contract suite out of the box', async () => {
    // The project's own compiler options, over what the scaffold wrote or edited and everything
    // that imports (rather than all of src/, so work in progress elsewhere cannot fail this test).
    const check = path.join(project, 'tsconfig.new-adapter-check.json');
    const files = ['src/adapters/acme-scaffold-check/index.ts', 'src/adapters/adapter-registry.ts', 'test/contract/acme-scaffold-check.contract.test.ts'];
    fs.writeFileSync(check, JSON.stringify({ extends: './tsconfig.json', include: [], files }));
    const [tsc, jest] = await Promise.all([
      run(path.join(BIN, 'tsc'), ['--noEmit', '-p', check], project),
      run(path.join(BIN, 'jest'), ['--config', path.join(project, 'jest.config.js'), 'test/contract/acme-scaffold-check.contract.test.ts'], project),
    ]);
    expect({ code: tsc.code, output: tsc.stdout + tsc.stderr }).toEqual({ code: 0, output: '' });
    expect({ code: jest.code, output: jest.code === 0 ? '' : jest.stderr }).toEqual({ code: 0, output: '' });
    expect(jest.stderr).toMatch(/Tests: {7}(\d+) passed, \1 total/);
    expect(jest.stderr).toContain('adapter contract: acme-scaffold-check');
    if (process.env.TEST_DATABASE_URL) expect(jest.stderr).toContain('through the sync engine on postgres');
  }, 120_000);

  describe('the generated REST client, against a fake of the API its README describes', () => {
    type ExampleSource = {
      itemIds(): string[];
      item(id: string): Record<string, unknown> | undefined;
      put(item: Record<string, unknown>, content?: Buffer): void;
      remove(id: string): void;
      latestSyncToken(): Promise<string>;
      changePages(since: string, signal: AbortSignal): AsyncIterable<{ changes: unknown[]; syncToken: string }>;
      openContent(item: { id: string }): Promise<Readable>;
    };
    type AdapterModule = {
      createAcmeScaffoldCheckAdapter(config: unknown, options?: { example?: ExampleSource }): IncrementalAdapter<{ syncToken: string }>;
      loadAcmeScaffoldCheckConfig(env: Record<string, string | undefined>): unknown;
    };
    type ExampleModule = {
      AcmeScaffoldCheckExampleSource: new () => ExampleSource;
      EXAMPLE_USERS: unknown[];
      EXAMPLE_GROUPS: unknown[];
    };
    const TOKEN = 'test-token-123';
    const ctx: AdapterContext = { logger: pino({ level: 'silent' }), signal: new AbortController().signal, now: () => new Date('2026-05-01T00:00:00Z') };
    let server: http.Server;
    let requests: string[];
    let example: ExampleSource;
    let adapters: { rest: IncrementalAdapter<{ syncToken: string }>; builtIn: IncrementalAdapter<{ syncToken: string }> };

    /** The API of the scaffold's README, serving the example dataset: cursor pages, a change feed, 401 and 410. */
    function fakeApi(data: ExampleModule): http.RequestListener {
      return (req, res) => {
        void (async () => {
          const url = new URL(req.url ?? '/', 'http://fake');
          requests.push(`${req.method} ${url.pathname}${url.search}`);
          const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
          if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { error: 'bad token' });
          const page = (all: unknown[]) => {
            const from = Number(url.searchParams.get('cursor') ?? 0);
            const to = from + Number(url.searchParams.get('limit'));
            send(200, { items: all.slice(from, to), next_cursor: to < all.length ? String(to) : null });
          };
          const content = /^\/api\/items\/([^/]+)\/content$/.exec(url.pathname);
          if (url.pathname === '/api/items') return page(example.itemIds().map((id) => example.item(id)));
          if (url.pathname === '/api/users') return page(data.EXAMPLE_USERS);
          if (url.pathname === '/api/groups') return page(data.EXAMPLE_GROUPS);
          if (url.pathname === '/api/changes/latest') return send(200, { sync_token: await example.latestSyncToken() });
          if (url.pathname === '/api/changes') {
            const since = url.searchParams.get('since') ?? '';
            if (since === 'expired') return send(410, { error: 'sync token expired' });
            const changes: unknown[] = [];
            let syncToken = since;
            for await (const p of example.changePages(since, new AbortController().signal)) {
              changes.push(...p.changes);
              syncToken = p.syncToken;
            }
            return send(200, { changes, sync_token: syncToken, has_more: false });
          }
          if (content?.[1]) {
            res.writeHead(200, { 'content-type': 'application/octet-stream' });
            return (await example.openContent({ id: decodeURIComponent(content[1]) })).pipe(res);
          }
          return send(404, { error: 'no such route' });
        })().catch((error: Error) => res.writeHead(500).end(error.message));
      };
    }

    /** Events with binary content read into bytes, so two runs compare as data. */
    async function normalised(events: AsyncIterable<SyncEvent>): Promise<unknown[]> {
      const out: unknown[] = [];
      for await (const event of events) {
        if (event.type === 'file' && event.file.content.kind === 'binary') {
          const bytes = await contentBytes(event.file);
          out.push({ ...event, file: { ...event.file, content: { kind: 'binary', version: event.file.content.version, bytes: bytes.toString('utf8') } } });
        } else out.push(event);
      }
      return out;
    }

    beforeAll(async () => {
      const dir = path.join(project, 'src/adapters/acme-scaffold-check');
      // the test runner transforms any .ts path: the rendered modules load from the copy, as rendered.
      /* eslint-disable @typescript-eslint/no-require-imports -- modules rendered at run time, loaded by path */
      const mod = require(path.join(dir, 'index.ts')) as AdapterModule;
      const data = require(path.join(dir, 'acme-scaffold-check-example-source.ts')) as ExampleModule;
      /* eslint-enable @typescript-eslint/no-require-imports */
      example = new data.AcmeScaffoldCheckExampleSource();
      requests = [];
      server = http.createServer(fakeApi(data));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
      adapters = {
        rest: mod.createAcmeScaffoldCheckAdapter(
          mod.loadAcmeScaffoldCheckConfig({ ACME_SCAFFOLD_CHECK_BASE_URL: baseUrl, ACME_SCAFFOLD_CHECK_TOKEN: TOKEN, ACME_SCAFFOLD_CHECK_PAGE_SIZE: '2' }),
        ),
        builtIn: mod.createAcmeScaffoldCheckAdapter(mod.loadAcmeScaffoldCheckConfig({}), { example }),
      };
      expect(() => mod.loadAcmeScaffoldCheckConfig({ ACME_SCAFFOLD_CHECK_BASE_URL: baseUrl })).toThrow(
        /ACME_SCAFFOLD_CHECK_TOKEN: is required when ACME_SCAFFOLD_CHECK_BASE_URL is set/,
      );
      expect(() => mod.loadAcmeScaffoldCheckConfig({ ACME_SCAFFOLD_CHECK_BASE_URL: 'ftp://x', ACME_SCAFFOLD_CHECK_TOKEN: 'secret-value' })).toThrow(
        /^Invalid acme-scaffold-check adapter settings: ACME_SCAFFOLD_CHECK_BASE_URL: /,
      );
    });
    afterAll(async () => {
      if (server) await new Promise((resolve) => server.close(resolve));
    });

    it('yields through REST exactly what the built-in example yields: full runs page by page, then changes from the feed', async () => {
      const full = await normalised(adapters.rest.full(ctx));
      expect(full).toEqual(await normalised(adapters.builtIn.full(ctx)));
      expect(requests).toEqual(
        expect.arrayContaining([
          'GET /api/changes/latest',
          'GET /api/items?limit=2',
          'GET /api/items?cursor=2&limit=2',
          'GET /api/items?cursor=4&limit=2',
          'GET /api/users?limit=2',
          'GET /api/users?cursor=2&limit=2',
          'GET /api/items/release-notes/content',
        ]),
      );

      const welcome = example.item('welcome');
      example.put({ ...welcome, body_html: '<p>Edited.</p>' });
      example.remove('roadmap');
      const since = { syncToken: '0' };
      const changes = await normalised(adapters.rest.changes(ctx, since));
      expect(changes).toEqual(await normalised(adapters.builtIn.changes(ctx, since)));
      expect(changes.filter((e) => (e as SyncEvent).type !== 'user' && (e as SyncEvent).type !== 'group')).toEqual([
        expect.objectContaining({ type: 'file', file: expect.objectContaining({ nativeId: 'welcome' }) }),
        { type: 'delete', kind: 'file', nativeId: 'roadmap' },
        { type: 'checkpoint', checkpoint: { syncToken: '2' } },
      ]);
    });

    it('turns 410 on the change feed into FullRunRequired (the engine then runs a full sync)', async () => {
      await expect(normalised(adapters.rest.changes(ctx, { syncToken: 'expired' }))).rejects.toMatchObject({ name: 'FullRunRequired', action: 'full-resync' });
    });
  });
});
