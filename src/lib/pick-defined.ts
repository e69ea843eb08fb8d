/**
 * The `keys` of `source` whose values are defined, for passing optional settings on without
 * writing `undefined` over the receiver's defaults.
 */
export function pickDefined<T extends object, K extends keyof T>(source: T, keys: readonly K[]): { [P in K]?: Exclude<T[P], undefined> } {
  const out: { [P in K]?: Exclude<T[P], undefined> } = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key] as Exclude<T[K], undefined>;
  return out;
}
