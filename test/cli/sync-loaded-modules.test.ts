import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adapterFactories } from '../../src/adapters/adapter-registry';
import { runCli, summaryOf } from '../e2e/cli-process';
import { projectPathOf, recordedModules, recordingEnv } from '../helpers/loaded-modules';

/**
 * `sync <adapter>` loads that adapter's code and no other's: the registry lists every adapter
 * through its small factory module, and a factory loads its adapter only when `create` runs. The
 * process lists the modules it loaded as it exits, after a sync of the demo corpus's tree.
 */

jest.setTimeout(60_000);

const ROOT = path.join(__dirname, '../..');
/** Libraries only other adapters use (SQL drivers, JSONata, the task template engine). */
const OTHER_ADAPTERS_LIBRARIES = ['pg', 'mysql2', 'jsonata', 'mustache'];

/** Why a file loaded by `sync <ran>` should not have been, or undefined. */
function forbidden(file: string, ran: string): string | undefined {
  const relative = projectPathOf(file);
  const adapter = /^src\/adapters\/([^/]+)\/([^/]+)\.[jt]s$/.exec(relative);
  if (adapter && adapter[1] !== ran && adapter[2] !== `${adapter[1]}-adapter-factory`) return `the ${adapter[1]} adapter's code`;
  const pkg = OTHER_ADAPTERS_LIBRARIES.find((name) => relative.startsWith(`node_modules/${name}/`));
  return pkg ? `${pkg}, a library of another adapter` : undefined;
}

describe('sync loads only the adapter it runs', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sync-loaded-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("holds for `sync filesystem`: the filesystem adapter and only the other adapters' factories", async () => {
    const loadedDir = path.join(dir, 'loaded');
    fs.mkdirSync(loadedDir);
    const ran = await runCli(['sync', 'filesystem'], {
      ...recordingEnv(loadedDir),
      FILESYSTEM_ROOT: path.join(ROOT, 'src/demo/corpus'),
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      LOG_LEVEL: 'error',
    });
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
    expect(summaryOf(ran.stdout)).toMatchObject({ source: 'filesystem', status: 'succeeded' });

    const loaded = recordedModules(loadedDir).flat().map(projectPathOf);
    // The list is real: the registry, every factory and the filesystem adapter's code are in it.
    expect(loaded).toEqual(
      expect.arrayContaining([
        'src/adapters/adapter-registry.js',
        'src/adapters/filesystem/filesystem-adapter.js',
        ...adapterFactories.map((f) => `src/adapters/${f.name}/${f.name}-adapter-factory.js`),
      ]),
    );
    const offending = [...new Set(loaded)].flatMap((file) => {
      const why = forbidden(path.join(ROOT, file), 'filesystem');
      return why ? [`${file}: ${why}`] : [];
    });
    expect(offending).toEqual([]);
  });

  it("knows another adapter's code when it sees it (the check is not vacuous)", () => {
    expect(forbidden(path.join(ROOT, 'dist/src/adapters/sql/sql-adapter.js'), 'filesystem')).toBe("the sql adapter's code");
    expect(forbidden(path.join(ROOT, 'dist/src/adapters/rest/index.js'), 'filesystem')).toBe("the rest adapter's code");
    expect(forbidden(path.join(ROOT, 'src/adapters/work-management/work-management-config.ts'), 'filesystem')).toBe("the work-management adapter's code");
    expect(forbidden(path.join(ROOT, 'node_modules/jsonata/jsonata.js'), 'filesystem')).toMatch(/another adapter/);
    expect(forbidden(path.join(ROOT, 'dist/src/adapters/example-wiki/example-wiki-adapter-factory.js'), 'filesystem')).toBeUndefined();
    expect(forbidden(path.join(ROOT, 'dist/src/adapters/filesystem/filesystem-adapter.js'), 'filesystem')).toBeUndefined();
    expect(forbidden(path.join(ROOT, 'dist/src/adapters/adapter-registry.js'), 'filesystem')).toBeUndefined();
  });
});
