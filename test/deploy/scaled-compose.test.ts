import fs from 'node:fs';
import path from 'node:path';
import { adapterFactories } from '../../src/adapters/adapter-registry';
import { settings } from '../../src/config/config-schema';
import { ROOT, commandOf, dependsOn, envOf, interpolateUnset, namedMounts, service, services, type Service } from './compose-file';

/**
 * The scaled shape in docker-compose.yml (`--profile scaled`), checked statically (no Docker
 * engine runs here): Redis, two gateway replicas on the same database and blobs, and a
 * TLS-terminating proxy whose upstreams are those replicas; every variable set is a real
 * setting, every service named exists, and health checks ask `/readyz`.
 */

const SETTING_NAMES = new Set(Object.values(settings).map((s) => s.env));
const ADAPTER_SETTINGS = new Set(adapterFactories.flatMap((f) => f.settings.map((s) => s.env)));
const scaled = Object.entries(services).filter(([, s]) => (s.profiles ?? []).includes('scaled'));
const replicas = scaled.filter(([, s]) => commandOf(s)[0] === 'serve');
const caddyfile = fs.readFileSync(path.join(ROOT, 'deploy', 'Caddyfile'), 'utf8');

/** `reverse_proxy a:3000 b:3000 { … }` → the upstreams, and the options in its block. */
function reverseProxy(text: string): { upstreams: string[]; options: Record<string, string> } {
  const m = /^\s*reverse_proxy\s+([^{\n]+?)\s*\{([\s\S]*?)^\s*\}/m.exec(text);
  if (!m) throw new Error('deploy/Caddyfile has no reverse_proxy block');
  const options: Record<string, string> = {};
  for (const line of (m[2] as string).split('\n').map((l) => l.trim())) {
    if (!line || line.startsWith('#')) continue;
    const [key, ...rest] = line.split(/\s+/);
    options[key as string] = rest.join(' ');
  }
  return { upstreams: (m[1] as string).split(/\s+/), options };
}

const healthTest = (s: Service): string => JSON.stringify(s.healthcheck?.test ?? '');

describe('docker-compose.yml --profile scaled', () => {
  it('has Redis, two replicas of the gateway and a proxy, all in the profile', () => {
    expect(scaled.map(([name]) => name)).toEqual(expect.arrayContaining(['redis', 'proxy']));
    expect(replicas.length).toBe(2);
    expect(service('redis').image).toMatch(/^redis:7/);
    for (const [, s] of replicas) expect(s.build !== undefined || s.image === service('gateway').image).toBe(true);
  });

  it('names only services that exist, in depends_on and as proxy upstreams', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const dependency of Object.keys(dependsOn(s)))
        expect({ name, dependency, exists: dependency in services }).toEqual({ name, dependency, exists: true });
    }
    const { upstreams } = reverseProxy(caddyfile);
    const replicaNames = replicas.map(([name]) => name);
    expect(upstreams.map((u) => u.split(':')[0]).sort()).toEqual([...replicaNames].sort());
    for (const upstream of upstreams) {
      const [host, port] = upstream.split(':');
      const replica = service(host as string);
      expect(port).toBe(envOf(replica).PORT ?? settings.port.default);
      expect((replica.expose ?? []).map(String)).toContain(port);
    }
    expect(Object.keys(dependsOn(service('proxy'))).sort()).toEqual([...replicaNames].sort());
  });

  it('sets only real settings in every gateway process (serve and sync), on every service', () => {
    for (const [name, s] of Object.entries(services).filter(([, s]) => ['serve', 'sync', 'sync-worker'].includes(commandOf(s)[0] ?? ''))) {
      const unknown = Object.keys(envOf(s)).filter((v) => !SETTING_NAMES.has(v) && !(commandOf(s)[0]?.startsWith('sync') === true && ADAPTER_SETTINGS.has(v)));
      expect({ name, unknown }).toEqual({ name, unknown: [] });
    }
  });

  it('checks readiness with /readyz: compose on each replica, the proxy on each upstream', () => {
    for (const [name, s] of replicas) {
      expect({ name, readyz: healthTest(s).includes('/readyz') }).toEqual({ name, readyz: true });
      expect(s.healthcheck?.disable).not.toBe(true);
    }
    expect(reverseProxy(caddyfile).options.health_uri).toBe('/readyz');
    for (const replica of Object.keys(dependsOn(service('proxy')))) expect(dependsOn(service('proxy'))[replica]?.condition).toBe('service_healthy');
  });

  it('points the replicas at one database, one blob store and the profile’s Redis, and shares limits there', () => {
    const gatewayEnv = envOf(service('gateway'));
    for (const [name, s] of replicas) {
      const env = envOf(s);
      expect({ name, db: env.DATABASE_URL, blobs: env.BLOB_STORE, dir: env.BLOB_DIR }).toEqual({
        name,
        db: gatewayEnv.DATABASE_URL,
        blobs: envOf(service('sync')).BLOB_STORE,
        dir: envOf(service('sync')).BLOB_DIR,
      });
      expect(namedMounts(s)).toEqual(namedMounts(service('sync')));
      const redis = new URL(interpolateUnset(env.REDIS_URL ?? ''));
      expect([redis.protocol, redis.hostname]).toEqual(['redis:', 'redis']);
      expect(dependsOn(s).redis?.condition).toBe('service_healthy');
      expect(dependsOn(s).postgres?.condition).toBe('service_healthy');
      // Links name the proxy's https address; X-Forwarded-* is trusted from one hop only, which
      // is safe because no replica publishes a port: only the proxy reaches them.
      expect(new URL(interpolateUnset(env.PUBLIC_BASE_URL ?? '')).protocol).toBe('https:');
      expect(env.TRUST_PROXY).toBe('1');
      expect(s.ports ?? []).toEqual([]);
    }
    expect(JSON.stringify(service('redis').healthcheck?.test)).toContain('ping');
    expect(service('redis').ports ?? []).toEqual([]);
  });

  it('terminates TLS at the proxy: it publishes 443 and mounts the committed Caddyfile', () => {
    const proxy = service('proxy');
    expect(proxy.image).toMatch(/^caddy:2/);
    const published = (proxy.ports ?? []).map((p) => (typeof p === 'string' ? interpolateUnset(p).split(':').pop() : String(p.target)));
    expect(published).toContain('443');
    const mount = (proxy.volumes ?? []).find((v) => typeof v === 'string' && v.includes('/etc/caddy/Caddyfile'));
    expect(typeof mount === 'string' && fs.existsSync(path.join(ROOT, mount.split(':')[0] as string))).toBe(true);
    // The site address is the public name; Caddy then serves HTTPS on it (and redirects HTTP).
    expect(caddyfile).toMatch(/^\{\$GATEWAY_DOMAIN:localhost\}\s*\{/m);
  });

  it('starts the sync without waiting for the single gateway, which the scaled shape scales to 0', () => {
    expect(Object.keys(dependsOn(service('sync')))).not.toContain('gateway');
  });
});
