/**
 * Building blocks of the wire representations: a resource's spec with its identity fields
 * (`gid`, `resource_type`) first, and getters for the field shapes most resources share (a
 * property as is, a time as ISO text, a reference by gid, a list of users, a fixed value).
 */
import type { Gid } from '../model';
import { iso, nodeMaker, nodeOf, refs, userRef, type Getter, type NodeSpec } from './render-node';

/** The keys of `T` whose values are of type `V`. */
type KeysOf<T, V> = { [K in keyof T]-?: T[K] extends V ? K : never }[keyof T];

interface ResourceFields<T> {
  /** Compact fields after `gid` and `resource_type`. */
  compact: readonly string[];
  /** Full fields after the compact ones (default: none: full = compact). */
  more?: readonly string[];
  /** Full fields after `gid` and `resource_type`, where they do not start with the compact ones. */
  full?: readonly string[];
  fields: Record<string, Getter<T>>;
}

/** The spec of a resource with a gid: `gid` and `resource_type` lead both field lists. */
export function resourceSpec<T extends { gid: Gid }>(type: string, def: ResourceFields<T>): NodeSpec<T> {
  const compact = ['gid', 'resource_type', ...def.compact];
  return {
    compact,
    full: def.full ? ['gid', 'resource_type', ...def.full] : [...compact, ...(def.more ?? [])],
    fields: { gid: (o) => o.gid, resource_type: () => type, ...def.fields },
  };
}

/** A resource whose compact form is `gid`, `resource_type` and `name`; full adds `more`. */
export function namedSpec<T extends { gid: Gid; name: string }>(type: string, more: readonly string[], fields: Record<string, Getter<T>>): NodeSpec<T> {
  return resourceSpec<T>(type, { compact: ['name'], more, fields: { name: (o) => o.name, ...fields } });
}

/** The property `key` as is. */
export function prop<T, K extends keyof T>(key: K): Getter<T> {
  return (o) => o[key];
}

/** The time (ms) of `key` as ISO text, or null. */
export function isoAt<T>(key: KeysOf<T, number | null | undefined>): Getter<T> {
  return (o) => iso(o[key] as number | null | undefined);
}

/** The object whose gid is `key`, compact, or null (whatever its type). */
export function refAt<T>(key: KeysOf<T, Gid | null | undefined>): Getter<T> {
  return (o, rc) => {
    const gid = o[key] as Gid | null | undefined;
    return gid ? nodeOf(rc, gid) : null;
  };
}

/** The user whose gid is `key`, or null. */
export function userAt<T>(key: KeysOf<T, Gid | null>): Getter<T> {
  return (o, rc) => userRef(rc, o[key] as Gid | null);
}

/** The users whose gids `key` lists (unknown gids left out). */
export function usersAt<T>(key: KeysOf<T, readonly Gid[]>): Getter<T> {
  return (o, rc) => refs(o[key] as readonly Gid[], (g) => rc.ctx.store.indexes.users.get(g), nodeMaker('user'));
}

/** Fields whose value never changes (the mock does not model them). */
export function fixed(values: Record<string, unknown>): Record<string, Getter<unknown>> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, () => value]));
}
