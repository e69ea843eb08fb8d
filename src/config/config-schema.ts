import type { z } from 'zod';
import { blobSettings } from './settings/blob-settings';
import { consoleSettings } from './settings/console-settings';
import { connectionSettings } from './settings/connection-settings';
import { databaseSettings } from './settings/database-settings';
import { deploymentSettings } from './settings/deployment-settings';
import { oauthSettings } from './settings/oauth-settings';
import { processSettings } from './settings/process-settings';
import { rateLimitSettings } from './settings/rate-limit-settings';
import { serverSettings } from './settings/server-settings';
import { servingSettings } from './settings/serving-settings';
import { syncSettings } from './settings/sync-settings';
import { tlsSettings } from './settings/tls-settings';

export type { SettingSpec } from './settings/setting-spec';

/**
 * Every setting of the gateway, in one place: the environment variable that sets it, its
 * default, and what it does. `loadConfig` reads them, the settings table of docs/settings.md is checked
 * against them by a test, and nothing else in `src/` reads `process.env`. Each area's settings are in
 * a module of `settings/`; the order here is the order of docs/settings.md.
 */
export const settings = {
  ...serverSettings,
  ...databaseSettings,
  ...blobSettings,
  ...deploymentSettings,
  ...servingSettings,
  ...tlsSettings,
  ...oauthSettings,
  ...rateLimitSettings,
  ...processSettings,
  ...connectionSettings,
  ...syncSettings,
  ...consoleSettings,
} as const;

export type Settings = typeof settings;
export type Config = { [K in keyof Settings]: z.output<Settings[K]['schema']> };

/** What each of `keys` is when its variable is unset: its default, read by its own schema. */
export function settingDefaults<K extends keyof Settings>(keys: readonly K[]): Pick<Config, K> {
  return Object.fromEntries(keys.map((key) => [key, settings[key].schema.parse(settings[key].default)])) as Pick<Config, K>;
}
