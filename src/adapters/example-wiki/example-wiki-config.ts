import { z } from 'zod';
import { invalidSettingsError, settingsFromEnv } from '../settings-from-env';

/** Each setting's environment variable (listed, with what it does, in example-wiki-adapter-factory.ts). */
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
