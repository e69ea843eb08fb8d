import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshGet } from '../helpers/fresh-get';
import { projectPathOf, recordedModules, recordingEnv } from '../helpers/loaded-modules';
import { startCli, type CliProcess } from '../e2e/cli-process';

/**
 * A started gateway (`serve`, its primary and each serving worker) loads nothing of the
 * verification kit, none of the libraries only the kit uses, and none of the operator tools
 * (conformance, platform clients, the scaffold): each process lists the modules it loaded as it
 * exits, after answering a list page, a file, a download and an access list.
 */

jest.setTimeout(120_000);

const ROOT = path.join(__dirname, '../..');
const KEY = 'loaded-modules-key-0123456789abcdef';
const LISTENING = /listening on http:\/\/localhost:(\d+)\/v1\/files \(2 workers\)/;

const kitManifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'kit/package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const productManifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
/** The kit's libraries that the product does not list for itself. */
const KIT_ONLY_PACKAGES = Object.keys(kitManifest.devDependencies).filter((name) => !(name in productManifest.dependencies) && !name.startsWith('@types/'));
const OPERATOR_TOOLS = ['src/conformance/', 'src/platform/', 'src/scaffold/'];
/** The operator console and the libraries only it uses: loaded only with CONSOLE_ENABLED (off here). */
const CONSOLE_ONLY = ['src/console/', 'src/cli/console-', 'node_modules/eta/', 'node_modules/csrf-csrf/', 'node_modules/cookie-parser/'];

/** Why a loaded file should not be in a serving process, or undefined. */
function forbidden(file: string): string | undefined {
  const relative = projectPathOf(file);
  if (relative.startsWith('kit/') || relative.startsWith('node_modules/@content-gateway/kit/')) return 'the kit';
  const pkg = KIT_ONLY_PACKAGES.find((name) => relative.startsWith(`node_modules/${name}/`));
  if (pkg) return `${pkg}, a library only the kit uses`;
  const tool = OPERATOR_TOOLS.find((prefix) => relative.startsWith(prefix));
  if (tool) return `an operator tool (${tool})`;
  const console = CONSOLE_ONLY.find((prefix) => relative.startsWith(prefix));
  return console ? `the console, which is off (${console})` : undefined;
}

describe('serve loads no module of the kit and no library only the kit uses', () => {
  let dir: string;
  let gw: CliProcess | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-loaded-'));
  });
  afterEach(async () => {
    if (gw && gw.child.exitCode === null) {
      gw.child.kill('SIGKILL');
      await gw.exited;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds for the primary and both workers after a crawl of the demo corpus', async () => {
    const loadedDir = path.join(dir, 'loaded');
    fs.mkdirSync(loadedDir);
    gw = startCli(['serve'], {
      ...recordingEnv(loadedDir),
      WEB_CONCURRENCY: '2',
      PORT: '0',
      HOST: '127.0.0.1',
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: KEY,
      LOG_LEVEL: 'info',
    });
    const port = LISTENING.exec(await gw.waitForLine((line) => LISTENING.test(line)))?.[1];
    await gw.waitForLog((log) => log.msg === 'gateway listening with serving workers');
    const base = `http://127.0.0.1:${port}`;
    const auth = { Authorization: `Bearer ${KEY}` };
    const pdf = encodeURIComponent('demo:engineering/incident-response-runbook.pdf');
    for (const route of ['/v1/files', `/v1/files/${pdf}`, `/v1/files/${pdf}/download`, `/v1/files/${pdf}/permissions`, '/v1/users', '/v1/groups']) {
      // Twice, on connections of their own, so both workers are likely to have answered.
      for (let i = 0; i < 2; i += 1) expect({ route, status: (await freshGet(`${base}${route}`, auth)).status }).toEqual({ route, status: 200 });
    }
    gw.child.kill('SIGTERM');
    expect((await gw.exited).code).toBe(0);

    const lists = recordedModules(loadedDir);
    expect(lists.length).toBe(3);
    const loaded = lists.flat();
    // The lists are real: the gateway's own modules are in them.
    expect(loaded.some((file) => file.endsWith(path.join('dist', 'src', 'http', 'create-app.js')))).toBe(true);
    expect(loaded.some((file) => file.includes(`${path.sep}node_modules${path.sep}express${path.sep}`))).toBe(true);
    const offending = [...new Set(loaded)].flatMap((file) => {
      const why = forbidden(file);
      return why ? [`${path.relative(ROOT, file)}: ${why}`] : [];
    });
    expect(offending).toEqual([]);
  });

  it('knows the kit and its libraries when it sees them (the check is not vacuous)', () => {
    expect(KIT_ONLY_PACKAGES).toEqual(expect.arrayContaining(['pdf-lib', 'jszip', 'mammoth', 'minisearch']));
    expect(forbidden(path.join(ROOT, 'kit/src/mocks/work-management/model.ts'))).toBe('the kit');
    expect(forbidden(path.join(ROOT, 'node_modules/pdf-lib/cjs/index.js'))).toMatch(/only the kit/);
    expect(forbidden(path.join(ROOT, 'src/conformance/run-conformance.ts'))).toMatch(/operator tool/);
    expect(forbidden(path.join(ROOT, 'dist/src/conformance/run-conformance.js'))).toMatch(/operator tool/);
    expect(forbidden(path.join(ROOT, 'src/http/create-app.ts'))).toBeUndefined();
    expect(forbidden(path.join(ROOT, 'dist/src/console/console-router.js'))).toMatch(/console, which is off/);
    expect(forbidden(path.join(ROOT, 'node_modules/eta/dist/index.cjs'))).toMatch(/console, which is off/);
  });
});
