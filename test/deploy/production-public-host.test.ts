import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../src/config/load-config';
import { requirePublicHost } from '../../src/config/require-public-host';

/**
 * The deployment files run the gateway in production (the image sets NODE_ENV=production), where
 * `serve` refuses to start without PUBLIC_BASE_URL or ALLOWED_HOSTS. Read as text (no Docker engine
 * here): every way they start the gateway must satisfy that rule with nothing but the documented
 * required variables set.
 */

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** `${VAR:-default}` → default, `${VAR:?msg}` → a placeholder, `${VAR}` → '': what compose sees with VAR unset. */
const interpolateUnset = (value: string): string =>
  value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*)|(:?\?)([^}]*))?\}/g, (_m, name: string, _d, dflt?: string, req?: string) =>
    req ? `required-${name.toLowerCase()}-0123456789` : (dflt ?? ''),
  );

const imageEnv = Object.fromEntries([...read('Dockerfile').matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]));

describe('production deployments name their public host', () => {
  it('the image runs in production mode', () => {
    expect(imageEnv.NODE_ENV).toBe('production');
  });

  it('docker-compose.yml starts the gateway with PUBLIC_BASE_URL or ALLOWED_HOSTS when neither is set in the shell', () => {
    const compose = YAML.parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { environment?: Record<string, string | null> }> };
    const env = Object.fromEntries(Object.entries(compose.services.gateway?.environment ?? {}).map(([k, v]) => [k, interpolateUnset(String(v ?? ''))]));
    const config = loadConfig({ ...imageEnv, ...env });
    expect(config.nodeEnv).toBe('production');
    expect(() => requirePublicHost(config)).not.toThrow();
  });

  it('every `docker run` of the image that serves, in the README, the deployment guide and the Dockerfile, sets one of them', () => {
    // `docker run [options] content-gateway [command]`: serving when the command is absent or `serve`.
    const runs = [
      ...`${read('README.md')}\n${read('docs/deployment.md')}\n${read('Dockerfile')}`.matchAll(/docker run [^\n`]*?content-gateway(?: ([a-z][\w-]*))?/g),
    ];
    const serving = runs.filter((m) => m[1] === undefined || m[1] === 'serve');
    expect(serving.length).toBeGreaterThan(0);
    for (const [line] of serving) expect({ line, named: /-e (PUBLIC_BASE_URL|ALLOWED_HOSTS)=/.test(line) }).toEqual({ line, named: true });
  });
});
