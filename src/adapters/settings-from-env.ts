import type { z } from 'zod';

/**
 * The settings `envOf` names that `env` sets, by setting key: values trimmed, and empty strings
 * count as unset, so a blank line in an env file leaves the default.
 */
export function settingsFromEnv<K extends string>(env: Record<string, string | undefined>, envOf: Readonly<Record<K, string>>): Partial<Record<K, string>> {
  const set: Partial<Record<K, string>> = {};
  for (const key of Object.keys(envOf) as K[]) {
    const value = env[envOf[key]]?.trim();
    if (value) set[key] = value;
  }
  return set;
}

/**
 * An adapter's invalid settings as one Error, each problem named by its setting's environment name
 * where `names` has it (an issue without a path is put on `firstKey`), each once. Messages never quote values.
 */
export function invalidSettingsError(adapter: string, error: z.ZodError, names: Readonly<Record<string, string>>, firstKey: string): Error {
  const problems = error.issues.map((issue) => {
    const key = String(issue.path[0] ?? firstKey);
    return `${names[key] ?? key}: ${issue.message}`;
  });
  // One problem a line: a schema may report the same one twice (a format check and a refinement).
  return new Error(`Invalid ${adapter} adapter settings: ${[...new Set(problems)].join('; ')}`);
}
