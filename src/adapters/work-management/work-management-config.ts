import path from 'node:path';
import { z } from 'zod';
import { projectRoot } from '../../lib/project-root';
import { ADAPTER_NAME } from '../adapter';
import { invalidSettingsError, settingsFromEnv } from '../settings-from-env';

export type EventStreams = 'auto' | 'workspace' | 'projects';

const httpUrl = z.url({ message: 'expected an absolute http(s) URL such as https://app.example.com/api/1.0' }).refine((v) => /^https?:\/\//i.test(v), {
  message: 'expected an absolute http(s) URL such as https://app.example.com/api/1.0',
});

export const workManagementConfigSchema = z.object({
  baseUrl: httpUrl,
  token: z.string().min(1, { message: 'is required' }),
  workspace: z.string().regex(/^\d+$/, { message: 'expected a workspace gid (digits)' }).optional(),
  sourceName: z
    .string()
    .regex(ADAPTER_NAME, { message: 'expected lower-case letters, digits and dashes, starting with a letter (at most 32)' })
    .default('work-management'),
  concurrency: z.coerce.number().int({ message: 'expected a whole number' }).min(1, { message: 'at least 1' }).max(16, { message: 'at most 16' }).default(4),
  template: z.string().min(1).optional(),
  eventStreams: z.enum(['auto', 'workspace', 'projects'], { message: 'expected auto, workspace or projects' }).default('auto'),
});

export type WorkManagementConfigInput = z.input<typeof workManagementConfigSchema>;

export interface WorkManagementConfig {
  /** Without a trailing slash. */
  baseUrl: string;
  /** The bearer token. Secret: never logged, never sent anywhere but `baseUrl`'s origin. */
  token: string;
  workspace: string | undefined;
  sourceName: string;
  concurrency: number;
  /** Absolute path of the task template. */
  template: string;
  eventStreams: EventStreams;
}

const ENV_OF: Readonly<Record<keyof WorkManagementConfigInput, string>> = {
  baseUrl: 'WORK_MANAGEMENT_BASE_URL',
  token: 'WORK_MANAGEMENT_TOKEN',
  workspace: 'WORK_MANAGEMENT_WORKSPACE',
  sourceName: 'WORK_MANAGEMENT_SOURCE_NAME',
  concurrency: 'WORK_MANAGEMENT_CONCURRENCY',
  template: 'WORK_MANAGEMENT_TEMPLATE',
  eventStreams: 'WORK_MANAGEMENT_EVENT_STREAMS',
};

/** The template shipped with the project (located when a config is resolved, never at import). */
export function defaultTaskTemplate(): string {
  return path.join(projectRoot(), 'templates', 'html', 'task.mustache');
}

/** Validates and normalises settings; throws an Error naming the offending setting (never its value). */
export function resolveWorkManagementConfig(input: WorkManagementConfigInput, names: Readonly<Record<string, string>> = {}): WorkManagementConfig {
  const parsed = workManagementConfigSchema.safeParse(input);
  if (!parsed.success) throw invalidSettingsError('work-management', parsed.error, names, 'baseUrl');
  const d = parsed.data;
  return {
    baseUrl: d.baseUrl.replace(/\/+$/, ''),
    token: d.token,
    workspace: d.workspace,
    sourceName: d.sourceName,
    concurrency: d.concurrency,
    template: d.template === undefined ? defaultTaskTemplate() : path.resolve(d.template),
    eventStreams: d.eventStreams,
  };
}

/** Reads the settings from environment variables (empty strings count as unset). */
export function workManagementConfigFromEnv(env: Record<string, string | undefined>): WorkManagementConfig {
  return resolveWorkManagementConfig({ baseUrl: '', token: '', ...settingsFromEnv(env, ENV_OF) } as WorkManagementConfigInput, ENV_OF);
}
