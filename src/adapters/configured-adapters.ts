import type { AdapterFactory } from './adapter-factory';

/**
 * Which adapters an environment configures: those with at least one of their settings set (an
 * empty value counts as unset). `sync --all` runs these and skips the others, rather than failing
 * every round on an adapter nobody set up; one with some settings but not all still runs, and
 * fails with the message naming what is missing.
 */
export function configuredAdapters(
  factories: readonly AdapterFactory[],
  env: Record<string, string | undefined>,
): { configured: AdapterFactory[]; skipped: AdapterFactory[] } {
  const isSet = (factory: AdapterFactory): boolean => factory.settings.some((s) => Boolean(env[s.env]?.trim()));
  return { configured: factories.filter(isSet), skipped: factories.filter((f) => !isSet(f)) };
}
