import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { adapterFactories } from '../../src/adapters/adapter-registry';
import { buildProgram } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';
import { settings } from '../../src/config/config-schema';
import { TOKEN_PATH } from '../../src/http/security/oauth-token-route';
import { buildKitProgram } from '../../kit/src/cli/kit-program';
import type { KitRuntime } from '../../kit/src/cli/kit-runtime';
import type { DocWorld } from './doc-command-check';

const compose = YAML.parse(fs.readFileSync(path.join(__dirname, '../../docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { build?: unknown }>;
};

export const ROOT = path.join(__dirname, '../..');

const runtime: Runtime & KitRuntime = {
  env: {},
  print: () => undefined,
  listen: () => Promise.reject(new Error('guides are checked, not run')),
  onShutdown: () => undefined,
  setExitCode: () => undefined,
  interactive: false,
};

/** The TypeScript files under `dir`. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** `env.NAME` / `env['NAME']` in the product, the kit and the test helpers: the variables the code reads. */
function variablesTheCodeReads(): string[] {
  const files = ['src', 'kit/src', 'test/helpers'].flatMap((dir) => sources(path.join(ROOT, dir)));
  return files.flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)].map((m) => m[1] as string));
}

/** `${env:NAME}` and `{ env: NAME }` in the manifests the repository ships: the variables a REST manifest reads. */
function manifestVariables(): string[] {
  const dir = path.join(ROOT, 'manifests');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) =>
      [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/\$\{env:([A-Z][A-Z0-9_]*)\}|\{\s*env:\s*([A-Z][A-Z0-9_]*)\s*\}/g)].map(
        (m) => (m[1] ?? m[2]) as string,
      ),
    );
}

/** `${NAME…}` in docker-compose.yml: the variables Compose substitutes. */
function composeVariables(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  return [...text.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1] as string);
}

const readJson = (file: string): { scripts?: Record<string, string> } =>
  JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as { scripts?: Record<string, string> };

/** The real things the guides' commands are checked against. */
export function docWorld(): DocWorld {
  const contract = YAML.parse(fs.readFileSync(path.join(ROOT, 'openapi/content-gateway.yaml'), 'utf8')) as { paths: Record<string, unknown> };
  return {
    gateway: () => buildProgram(runtime),
    kit: () => Promise.resolve(buildKitProgram(runtime)),
    scripts: readJson('package.json').scripts ?? {},
    // the contract's paths, and what src/http/create-app.ts serves besides them
    routes: [...Object.keys(contract.paths), TOKEN_PATH, '/metrics', '/openapi.json'],
    variables: new Set([
      ...Object.values(settings).map((s) => s.env),
      ...adapterFactories.flatMap((f) => f.settings.map((s) => s.env)),
      ...variablesTheCodeReads(),
      ...composeVariables(),
      ...manifestVariables(),
    ]),
    shellVariables: {
      B: "README's shorthand for the gateway's base URL",
      H: "README's shorthand for the Authorization header",
      ID: "README's percent-encoded example id",
      KEY: "platform-compatibility.md's shorthand for the gateway's key",
      GW: "platform-compatibility.md's shorthand for the gateway's URL",
      SERVER_URL: "read by the platform's own validator (validate.py), not by this project",
    },
    composeServices: Object.fromEntries(Object.entries(compose.services).map(([name, s]) => [name, { gateway: s.build !== undefined }])),
    external: {
      docker: 'Docker (docker compose lines are checked against docker-compose.yml and the command line)',
      sqlite3: 'the SQLite shell',
      psql: 'the Postgres shell',
      pg_dump: 'Postgres backup',
      pg_restore: 'Postgres restore',
      mariadb: 'the MariaDB shell',
      tar: 'archives',
      cp: 'file copy',
      rm: 'file removal',
      mkdir: 'directories',
      cat: 'file contents',
      openssl: 'random keys',
      python3: "the platform's own validator",
      git: 'version control',
    },
  };
}
