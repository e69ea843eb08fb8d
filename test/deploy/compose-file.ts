import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/**
 * docker-compose.yml as the deploy tests read it: parsed with YAML merge keys (`<<: *anchor`),
 * as Compose does, with helpers that read a service the way Compose would.
 */

export const ROOT = path.join(__dirname, '..', '..');

export interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  ports?: Array<string | { target: number; published?: string | number }>;
  expose?: Array<string | number>;
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: Array<string | { type?: string; source?: string; target: string }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  profiles?: string[];
  restart?: string;
}
export interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

// Compose honours YAML merge keys (`<<: *anchor`), so parse with them.
export const compose = YAML.parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Compose;
export const services = compose.services;
export function service(name: string): Service {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service '${name}'`);
  return s;
}

export function envOf(s: Service): Record<string, string> {
  const env = s.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((e) => [e.split('=')[0] as string, e.includes('=') ? e.slice(e.indexOf('=') + 1) : '']));
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

/** `${VAR:-default}` → default, `${VAR:?msg}` → a placeholder, `${VAR}` → '': what compose sees with VAR unset. */
export function interpolateUnset(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*)|(:?\?)([^}]*))?\}/g, (_m, name: string, _d, dflt?: string, req?: string) =>
    req ? `required-${name.toLowerCase()}` : (dflt ?? ''),
  );
}

export const commandOf = (s: Service): string[] => (Array.isArray(s.command) ? s.command : (s.command ?? '').split(/\s+/).filter(Boolean));
export const dependsOn = (s: Service): Record<string, { condition?: string }> =>
  Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, {}])) : (s.depends_on ?? {});
/** Named volumes mounted by a service, as `volume → container path`. */
export function namedMounts(s: Service): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of s.volumes ?? []) {
    const [source, target] = typeof v === 'string' ? (interpolateUnset(v).split(':') as [string, string]) : [v.source ?? '', v.target];
    if (source && !source.startsWith('.') && !source.startsWith('/') && !source.startsWith('~')) out[source] = target;
  }
  return out;
}
