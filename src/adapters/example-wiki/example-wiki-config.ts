import { z } from 'zod';
import { invalidSettingsError, settingsFromEnv } from '../settings-from-env';

/** Read from the environment only, never a command line: `sync --help` and docs/adapters.md list them. */
export const EXAMPLE_WIKI_SETTINGS = [
  { env: 'EXAMPLE_WIKI_URL', description: 'Base URL of the wiki REST API, e.g. https://wiki.example.com/api/v1 (required).' },
  { env: 'EXAMPLE_WIKI_TOKEN', description: 'Bearer token of a service account that can read every page (required; secret: never logged).' },
] as const;

const ENV_OF = { baseUrl: 'EXAMPLE_WIKI_URL', token: 'EXAMPLE_WIKI_TOKEN' } as const;

const configSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/, message: 'expected an absolute http(s) URL' }),
  token: z.string().min(1, { message: 'is required' }),
});

export type ExampleWikiConfig = z.infer<typeof configSchema>;

/** Throws an Error naming each bad variable, never quoting a value (the token is a secret). */
export function exampleWikiConfigFromEnv(env: Record<string, string | undefined>): ExampleWikiConfig {
  const parsed = configSchema.safeParse({ baseUrl: '', token: '', ...settingsFromEnv(env, ENV_OF) });
  if (!parsed.success) throw invalidSettingsError('example-wiki', parsed.error, ENV_OF, 'baseUrl');
  return parsed.data;
}
