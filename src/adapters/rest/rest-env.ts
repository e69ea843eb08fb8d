import type { Text, TextMap } from './rest-manifest';

/** A setting a manifest refers to that the environment does not give; names the variable, never a value. */
export class RestEnvError extends Error {
  override readonly name = 'RestEnvError';
}

const REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A manifest value with its environment references filled in: `{ env: NAME }` is the variable's
 * value, `${env:NAME}` inside a string is replaced by it. `at` names the field in messages.
 */
export function resolveText(value: Text, env: Readonly<Record<string, string | undefined>>, at: string): string {
  const lookup = (name: string): string => {
    const found = env[name];
    if (found === undefined || found === '') throw new RestEnvError(`${at} refers to the environment variable ${name}, which is not set`);
    return found;
  };
  if (typeof value === 'object') return lookup(value.env);
  if (typeof value !== 'string') return String(value);
  return value.replace(REFERENCE, (_, name: string) => lookup(name));
}

export function resolveTextMap(map: TextMap | undefined, env: Readonly<Record<string, string | undefined>>, at: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) out[key] = resolveText(value, env, `${at}.${key}`);
  return out;
}

/** A JSON body with its references filled in, at any depth: strings and `{ env: NAME }` objects alike. */
export function resolveDeep(value: unknown, env: Readonly<Record<string, string | undefined>>, at: string): unknown {
  if (typeof value === 'string') return resolveText(value, env, at);
  if (Array.isArray(value)) return value.map((v, i) => resolveDeep(v, env, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0]?.[0] === 'env' && typeof entries[0][1] === 'string') return resolveText({ env: entries[0][1] }, env, at);
  return Object.fromEntries(entries.map(([k, v]) => [k, resolveDeep(v, env, `${at}.${k}`)]));
}
