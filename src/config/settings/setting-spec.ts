import type { z } from 'zod';

/** One setting: the environment variable that sets it, its schema, its default, and what it does. */
export interface SettingSpec<T extends z.ZodType = z.ZodType> {
  env: string;
  schema: T;
  /** Shown in docs/settings.md; `undefined` means the setting has no default (it is optional or secret). */
  default?: string;
  description: string;
  secret?: boolean;
}

/** Declares a setting, keeping its schema's own type (so the config's type follows from the schemas). */
export function setting<T extends z.ZodType>(spec: SettingSpec<T>): SettingSpec<T> {
  return spec;
}
