import { z } from 'zod';
import { ADAPTER_NAME } from '../adapter';
import { invalidSettingsError, settingsFromEnv } from '../settings-from-env';
import { loadRestManifest, type LoadedManifest } from './rest-manifest-file';

const ENV_OF = { manifest: 'REST_MANIFEST', sourceName: 'REST_SOURCE_NAME' } as const;

const schema = z.object({
  manifest: z.string({ message: 'is required' }).min(1, { message: 'is required' }),
  sourceName: z.string().regex(ADAPTER_NAME, { message: 'expected lower-case letters, digits and dashes, starting with a letter (at most 32)' }).optional(),
});

export interface RestAdapterConfig {
  name: string;
  loaded: LoadedManifest;
}

/** Reads the settings and the manifest they name. Throws naming each bad variable, or the manifest's problems with their lines. */
export function restConfigFromEnv(env: Record<string, string | undefined>): RestAdapterConfig {
  const parsed = schema.safeParse(settingsFromEnv(env, ENV_OF));
  if (!parsed.success) throw invalidSettingsError('rest', parsed.error, ENV_OF, 'manifest');
  const loaded = loadRestManifest(parsed.data.manifest);
  return { name: parsed.data.sourceName ?? loaded.manifest.name ?? 'rest', loaded };
}
