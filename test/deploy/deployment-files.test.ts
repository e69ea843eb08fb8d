import fs from 'node:fs';
import path from 'node:path';
import { adapterFactories } from '../../src/adapters/adapter-registry';
import { buildProgram } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';
import { parseInterval } from '../../src/cli/parse-interval';
import { settings } from '../../src/config/config-schema';
import { DEMO_CORPUS_DIR } from '../../src/demo/demo-corpus-dir';
import { REPORT_ASSETS_DIR } from '../../src/conformance/report/report-assets';
import { CONTRACT_PATH } from '../../src/http/load-contract';
import { commandOf, compose, dependsOn, envOf, interpolateUnset, namedMounts, service, services, type Service } from './compose-file';

/**
 * Static checks of the files users deploy with. No Docker engine runs on development or CI
 * machines, so these read the Dockerfile and the compose file as text and compare them with the
 * code they package: setting names, command names, paths read at run time.
 */

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');
const SETTING_NAMES = new Set(Object.values(settings).map((s) => s.env));

// ---- Dockerfile ----------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string | undefined;
  base: string;
  instructions: Instruction[];
}

/** Instructions grouped by stage; line continuations joined, comments dropped. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(`${pending}${line}`.trim());
    pending = '';
  }
  if (pending.trim()) logical.push(pending.trim());

  const stages: Stage[] = [];
  for (const line of logical.filter(Boolean)) {
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const keyword = (m[1] as string).toUpperCase();
    const args = m[2] as string;
    if (keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Unreadable FROM: ${line}`);
      stages.push({ base: from[1] as string, name: from[2], instructions: [] });
    } else if (keyword !== 'ARG' || stages.length > 0) {
      const stage = stages[stages.length - 1];
      if (!stage) throw new Error(`${keyword} before the first FROM`);
      stage.instructions.push({ keyword, args });
    }
  }
  return stages;
}

const all = (stage: Stage, keyword: string): string[] => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

/** Exec form (`["a","b"]`) or shell form, as argv. */
function argv(args: string): string[] {
  return args.trim().startsWith('[') ? (JSON.parse(args) as string[]) : ['/bin/sh', '-c', args];
}

interface Copy {
  from: string | undefined;
  sources: string[];
  dest: string;
}
function parseCopy(args: string): Copy {
  let rest = args.trim();
  let from: string | undefined;
  for (let flag = /^--(\S+?)(?:=(\S+))?\s+/.exec(rest); flag; flag = /^--(\S+?)(?:=(\S+))?\s+/.exec(rest)) {
    if (flag[1] === 'from') from = flag[2];
    rest = rest.slice(flag[0].length);
  }
  const parts = rest.startsWith('[') ? (JSON.parse(rest) as string[]) : rest.split(/\s+/);
  return { from, sources: parts.slice(0, -1), dest: parts[parts.length - 1] as string };
}

/** `ENV A=1 B="two"` and the legacy `ENV A 1`. */
function parseEnv(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(args)) {
    const m = /^(\S+)\s+(.*)$/.exec(args);
    if (m) out[m[1] as string] = m[2] as string;
    return out;
  }
  for (const m of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S*)/g)) {
    out[m[1] as string] = (m[2] as string).replace(/^(["'])(.*)\1$/, '$2');
  }
  return out;
}

const stages = parseDockerfile(read('Dockerfile'));
const final = stages[stages.length - 1] as Stage;
const finalEnv = Object.assign({}, ...all(final, 'ENV').map(parseEnv)) as Record<string, string>;
const workdir = all(final, 'WORKDIR').pop() ?? '/';
const finalCopies = all(final, 'COPY').map(parseCopy);

describe('Dockerfile', () => {
  it('is multi-stage: a build stage on node 20 slim with the native toolchain, and a runtime stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.base).toMatch(/^node:20(\.[\d.]+)?-bookworm-slim$/);
    const build = stages[0] as Stage;
    const runs = all(build, 'RUN').join('\n');
    expect(runs).toMatch(/apt-get install[^\n]*\bpython3\b[^\n]*\bmake\b[^\n]*\bg\+\+/);
    // Reproducible from the lock file, with better-sqlite3's install script allowed to run.
    expect(runs).toMatch(/npm ci\b[^\n]*--ignore-scripts=false/);
    expect(runs).toMatch(/npm run build/);
    expect(runs).not.toMatch(/npm install\b/);
  });

  it('runs the final stage as a non-root user with NODE_ENV=production', () => {
    const user = all(final, 'USER').pop();
    expect(user).toBeDefined();
    expect((user as string).split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(finalEnv.NODE_ENV).toBe('production');
  });

  it('installs no dev dependencies in the final stage: node_modules comes pruned from an earlier stage', () => {
    const installs = all(final, 'RUN').filter((r) => /\bnpm (ci|install|i)\b/.test(r));
    for (const install of installs) expect(install).toMatch(/--omit=dev/);
    const copied = finalCopies.find((c) => c.sources.some((s) => /(^|\/)node_modules\/?$/.test(s)));
    if (installs.length === 0) {
      expect(copied?.from).toBeDefined();
      const source = stages.find((s) => s.name === copied?.from);
      expect(source).toBeDefined();
      expect(all(source as Stage, 'RUN').join('\n')).toMatch(/npm (prune|ci)\b[^\n]*--omit=dev/);
    }
  });

  it('keeps its data in a /data volume, exposes 3000 and checks /healthz with node', () => {
    expect(all(final, 'VOLUME').join(' ')).toMatch(/["\s[]?\/data\b/);
    expect(finalEnv.SQLITE_PATH).toBe('/data/gateway.sqlite');
    expect(finalEnv.BLOB_DIR).toBe('/data/blobs');
    expect(all(final, 'EXPOSE').join(' ').split(/\s+/)).toContain('3000');
    const health = all(final, 'HEALTHCHECK').join('\n');
    expect(health).toMatch(/\bCMD\b/);
    expect(health).toMatch(/\bnode\b/);
    expect(health).toContain('/healthz');
  });

  it('sets only real settings in its environment', () => {
    expect(Object.keys(finalEnv).filter((name) => !SETTING_NAMES.has(name))).toEqual([]);
  });

  it('starts `node dist/src/main.js serve`, the package main', () => {
    const command = [...argv(all(final, 'ENTRYPOINT').pop() ?? '[]'), ...argv(all(final, 'CMD').pop() ?? '[]')];
    expect(command).toEqual(['node', 'dist/src/main.js', 'serve']);
    expect((JSON.parse(read('package.json')) as { main: string }).main).toBe('dist/src/main.js');
  });

  it('copies from the build context only paths that exist and are not in .dockerignore', () => {
    const ignored = dockerignore();
    const fromContext = stages
      .flatMap((s) => all(s, 'COPY').map(parseCopy))
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const source of fromContext) {
      expect({ source, exists: fs.existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
      const top = source.replace(/^\.\//, '').split('/')[0] as string;
      expect({ source, ignored: ignored.includes(top) }).toEqual({ source, ignored: false });
    }
  });

  it('ships what the program reads at run time, where the program looks for it', () => {
    // Code finds the package root as the folder above dist/ (the one holding package.json); the
    // image must hold the same tree under its WORKDIR.
    const dests = new Set(finalCopies.map((c) => path.posix.normalize(path.posix.resolve(workdir, c.dest)).replace(/\/$/, '')));
    const inImage = (repoPath: string): string => path.posix.join(workdir, repoPath.split(path.sep).join('/'));
    for (const needed of [
      'package.json',
      'node_modules',
      'dist',
      path.relative(ROOT, CONTRACT_PATH).split(path.sep)[0] as string, // openapi/
      path.relative(ROOT, DEMO_CORPUS_DIR), // src/demo/corpus
      path.relative(ROOT, REPORT_ASSETS_DIR), // src/conformance/report/assets (the conformance report page's CSS and scripts)
    ]) {
      const target = inImage(needed);
      const shipped = dests.has(target) || (needed === 'package.json' && dests.has(workdir));
      expect({ needed, shipped }).toEqual({ needed, shipped: true });
    }
    if (fs.existsSync(path.join(ROOT, 'templates', 'html'))) {
      expect(dests.has(inImage('templates/html')) || dests.has(inImage('templates'))).toBe(true);
    }
  });
});

// ---- .dockerignore -------------------------------------------------------------------------------

function dockerignore(): string[] {
  return read('.dockerignore')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'))
    .map((l) => l.replace(/^\/+/, '').replace(/\/+$/, ''));
}

describe('.dockerignore', () => {
  it('keeps local dependencies, builds, data and history out of the build context', () => {
    const ignored = dockerignore();
    for (const entry of ['node_modules', 'dist', 'data', '.git', 'coverage', 'kit/bench/results']) expect(ignored).toContain(entry);
  });
});

// ---- docker-compose.yml --------------------------------------------------------------------------

const usesGatewayImage = (s: Service): boolean => s.build !== undefined || (s.image ?? '') === services.gateway?.image;

describe('docker-compose.yml', () => {
  it('parses, with the gateway, Postgres and sync services, and no unresolved merge keys', () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(['gateway', 'postgres', 'sync']));
    expect(JSON.stringify(compose)).not.toContain('"<<"');
  });

  it('builds the gateway from this folder, publishes port 3000, health-checks it and restarts it', () => {
    const gateway = service('gateway');
    expect(gateway.build).toBeDefined();
    const targets = (gateway.ports ?? []).map((p) => (typeof p === 'string' ? interpolateUnset(p).split(':').pop()?.split('/')[0] : String(p.target)));
    expect(targets).toContain('3000');
    expect(gateway.healthcheck?.test).toBeDefined();
    expect(gateway.healthcheck?.disable).not.toBe(true);
    expect(JSON.stringify(gateway.healthcheck?.test)).toContain('/healthz');
    expect(gateway.restart).toBe('unless-stopped');
  });

  it('points the gateway at the postgres service and starts it only once Postgres is healthy', () => {
    const gateway = service('gateway');
    expect(dependsOn(gateway).postgres?.condition).toBe('service_healthy');
    const url = new URL(interpolateUnset(envOf(gateway).DATABASE_URL ?? ''));
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('postgres');
    expect(url.port).toBe('5432');
    const pg = envOf(service('postgres'));
    expect(decodeURIComponent(url.username)).toBe(pg.POSTGRES_USER);
    expect(url.pathname.slice(1)).toBe(pg.POSTGRES_DB);
    expect(decodeURIComponent(url.password)).toBe(interpolateUnset(pg.POSTGRES_PASSWORD ?? ''));
  });

  it('requires GATEWAY_API_KEY from the environment (compose refuses to start without it)', () => {
    expect(envOf(service('gateway')).GATEWAY_API_KEY).toMatch(/^\$\{GATEWAY_API_KEY:\?[^}]+\}$/);
  });

  it('sets only real settings in the gateway environment', () => {
    const unknown = Object.keys(envOf(service('gateway'))).filter((name) => !SETTING_NAMES.has(name));
    expect(unknown).toEqual([]);
  });

  it('keeps Postgres data in a named volume and health-checks it with pg_isready', () => {
    const pg = service('postgres');
    expect(pg.image).toMatch(/^postgres:15/);
    const mounts = namedMounts(pg);
    expect(Object.values(mounts)).toContain('/var/lib/postgresql/data');
    for (const volume of Object.keys(mounts)) expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    expect(JSON.stringify(pg.healthcheck?.test)).toMatch(/pg_isready -U gateway/);
  });

  it('runs `sync-worker --all --every <interval>` from the same image, on the same database (a job queue there, shared by any number of workers)', () => {
    const sync = service('sync');
    expect(usesGatewayImage(sync)).toBe(true);
    const command = commandOf(sync);
    expect(command.slice(0, 3)).toEqual(['sync-worker', '--all', '--every']);
    expect(parseInterval(command[3] ?? '')).toBeGreaterThan(0);
    expect(envOf(sync).DATABASE_URL).toBe(envOf(service('gateway')).DATABASE_URL);
    // The sync worker reads the gateway's settings and the registered adapters' own settings.
    const adapterSettings = new Set(adapterFactories.flatMap((f) => f.settings.map((s) => s.env)));
    const unknown = Object.keys(envOf(sync)).filter((name) => !SETTING_NAMES.has(name) && !adapterSettings.has(name));
    expect(unknown).toEqual([]);
    const deps = dependsOn(sync);
    expect(deps.gateway?.condition === 'service_healthy' || deps.postgres?.condition === 'service_healthy').toBe(true);
  });

  it('shares one blob volume between the gateway and sync, mounted where BLOB_DIR points', () => {
    const gateway = service('gateway');
    const sync = service('sync');
    const gatewayMounts = namedMounts(gateway);
    const shared = Object.keys(gatewayMounts).filter((v) => namedMounts(sync)[v] === gatewayMounts[v]);
    expect(shared.length).toBeGreaterThan(0);
    expect(Object.keys(compose.volumes ?? {})).toEqual(expect.arrayContaining(shared));
    for (const s of [gateway, sync]) {
      const blobDir = envOf(s).BLOB_DIR ?? finalEnv.BLOB_DIR ?? '';
      expect(shared.some((v) => blobDir === gatewayMounts[v] || blobDir.startsWith(`${gatewayMounts[v]}/`))).toBe(true);
    }
  });

  it('runs the gateway image only: the verification kit (mocks, scenarios) is not part of it, and every optional service is in the scaled shape', () => {
    expect(dockerignore()).toContain('kit');
    for (const [name, s] of Object.entries(services)) {
      expect({ name, command: commandOf(s)[0] }).not.toEqual({ name, command: expect.stringMatching(/^(mock|harness)$/) });
      expect({ name, profiles: s.profiles ?? [] }).toEqual({ name, profiles: (s.profiles ?? []).length ? [name.startsWith('minio') ? 's3' : 'scaled'] : [] });
    }
  });

  it('offers MinIO (--profile s3) for BLOB_STORE=s3: the gateway and sync reach it with the same settings, a one-shot service makes the bucket, secrets only in environments', () => {
    const minio = service('minio');
    expect(minio.image).toMatch(/^minio\/minio\b/);
    expect(commandOf(minio).slice(0, 2)).toEqual(['server', '/data']);
    expect(Object.values(namedMounts(minio))).toContain('/data');
    expect(JSON.stringify(minio.healthcheck?.test)).toContain('ready');
    const gatewayEnv = envOf(service('gateway'));
    const s3Names = ['S3_BUCKET', 'S3_ENDPOINT', 'S3_REGION', 'S3_FORCE_PATH_STYLE', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
    for (const name of s3Names)
      expect({ name, same: envOf(service('sync'))[name] === gatewayEnv[name], set: name in gatewayEnv }).toEqual({ name, same: true, set: true });
    expect(new URL(interpolateUnset(gatewayEnv.S3_ENDPOINT ?? '')).host).toBe('minio:9000');
    const minioEnv = envOf(minio);
    expect(interpolateUnset(minioEnv.MINIO_ROOT_USER ?? '')).toBe(interpolateUnset(gatewayEnv.S3_ACCESS_KEY_ID ?? ''));
    expect(interpolateUnset(minioEnv.MINIO_ROOT_PASSWORD ?? '')).toBe(interpolateUnset(gatewayEnv.S3_SECRET_ACCESS_KEY ?? ''));
    const bucket = service('minio-bucket');
    expect(dependsOn(bucket).minio?.condition).toBe('service_healthy');
    expect(interpolateUnset(commandOf(bucket).join(' '))).toContain(`/${interpolateUnset(gatewayEnv.S3_BUCKET ?? '')}`);
    // mc reads the server and its credentials from MC_HOST_<alias>, never from its command line.
    expect(commandOf(bucket).join(' ')).not.toMatch(/S3_SECRET_ACCESS_KEY|MINIO_ROOT_PASSWORD/);
    expect(Object.keys(envOf(bucket)).some((k) => k.startsWith('MC_HOST_'))).toBe(true);
    for (const name of ['gateway', 'sync']) {
      expect({ name, bucket: dependsOn(service(name))['minio-bucket'] }).toEqual({
        name,
        bucket: { condition: 'service_completed_successfully', required: false },
      });
    }
  });

  it('runs only commands the CLI has, with options it knows', async () => {
    const runtime: Runtime = {
      env: {},
      print: () => undefined,
      listen: () => Promise.reject(new Error('not in this test')),
      onShutdown: () => undefined,
      setExitCode: () => undefined,
      interactive: false,
    };
    const program = await buildProgram(runtime);
    for (const [name, s] of Object.entries(services).filter(([, s]) => usesGatewayImage(s))) {
      const [commandName, ...args] = commandOf(s).length ? commandOf(s) : ['serve'];
      let command = program.commands.find((c) => c.name() === commandName);
      expect({ name, command: commandName, registered: Boolean(command) }).toEqual({ name, command: commandName, registered: true });
      // Descend into subcommands (`mock work-management --port …`).
      let rest = args;
      for (let sub = command?.commands.find((c) => c.name() === rest[0]); sub; sub = command?.commands.find((c) => c.name() === rest[0])) {
        command = sub;
        rest = rest.slice(1);
      }
      const known = new Set((command?.options ?? []).map((o) => o.long));
      for (const option of rest.filter((a) => a.startsWith('--'))) {
        expect({ name, option, known: known.has(option) }).toEqual({ name, option, known: true });
      }
    }
  });
});
