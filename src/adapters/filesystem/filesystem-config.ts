import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ADAPTER_NAME } from '../adapter';
import { invalidSettingsError, settingsFromEnv } from '../settings-from-env';

const sourceName = z.string().regex(ADAPTER_NAME, { message: 'expected lower-case letters, digits and dashes, starting with a letter (at most 32)' });
/** As the gateway's own settings spell a flag in the environment. */
const flag = z.enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' }).transform((v) => v === 'true' || v === '1' || v === 'yes');
const baseUrl = z.url({ message: 'expected an absolute URL such as https://intranet.example.com/docs' });

/** What `createFilesystemAdapter` accepts: only `root` is required. */
export const filesystemConfigSchema = z.object({
  root: z.string().min(1, { message: 'is required' }),
  directoryFile: z.string().min(1).optional(),
  baseUrl: baseUrl.optional(),
  sourceName: sourceName.default('filesystem'),
  /** Unset: on a machine with more than one CPU. */
  workerThread: z.union([z.boolean(), flag], { message: 'expected true or false' }).optional(),
});

export type FilesystemConfigInput = z.input<typeof filesystemConfigSchema>;

export interface FilesystemConfig {
  /** Absolute (not yet realpath-resolved: that is I/O, done when a run starts). */
  root: string;
  /** Absolute, or undefined: `_directory.yaml` or `_directory.json` at the root. */
  directoryFile: string | undefined;
  /** Without a trailing slash; undefined: file:// URLs. */
  baseUrl: string | undefined;
  sourceName: string;
  /** Walk, read and render on a worker thread (see filesystem-worker-events.ts). */
  workerThread: boolean;
}

const ENV_OF: Readonly<Record<keyof FilesystemConfigInput, string>> = {
  root: 'FILESYSTEM_ROOT',
  directoryFile: 'FILESYSTEM_DIRECTORY_FILE',
  baseUrl: 'FILESYSTEM_BASE_URL',
  sourceName: 'FILESYSTEM_SOURCE_NAME',
  workerThread: 'FILESYSTEM_WORKER_THREAD',
};

/** Validates and normalises settings; throws an Error naming the offending setting. */
export function resolveFilesystemConfig(input: FilesystemConfigInput, names: Readonly<Record<string, string>> = {}): FilesystemConfig {
  const parsed = filesystemConfigSchema.safeParse(input);
  if (!parsed.success) throw invalidSettingsError('filesystem', parsed.error, names, 'root');
  const { root, directoryFile, baseUrl: base, sourceName: name, workerThread } = parsed.data;
  const absoluteRoot = path.resolve(root);
  return {
    root: absoluteRoot,
    directoryFile: directoryFile === undefined ? undefined : path.resolve(absoluteRoot, directoryFile),
    baseUrl: base?.replace(/\/+$/, ''),
    sourceName: name,
    workerThread: workerThread ?? availableParallelism() > 1,
  };
}

/** Reads the settings from environment variables (empty strings count as unset). */
export function filesystemConfigFromEnv(env: Record<string, string | undefined>): FilesystemConfig {
  return resolveFilesystemConfig({ root: '', ...settingsFromEnv(env, ENV_OF) } as FilesystemConfigInput, ENV_OF);
}
