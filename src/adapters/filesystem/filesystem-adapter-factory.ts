import type { AdapterFactory } from '../adapter-factory';

/** The filesystem adapter's settings, as the environment spells them (shown by `--help` and the README). */
export const FILESYSTEM_SETTINGS = [
  { env: 'FILESYSTEM_ROOT', description: 'Folder whose tree of documents is synced (required). Nothing outside it is ever read.' },
  {
    env: 'FILESYSTEM_DIRECTORY_FILE',
    description: 'YAML or JSON file listing the users and groups the access sidecars name (a relative path is taken from the root).',
    default: '<root>/_directory.yaml (or _directory.json)',
  },
  {
    env: 'FILESYSTEM_BASE_URL',
    description: "URL the files are browsable under; a file's external URL is this plus its relative path. Unset: the file:// URL of the file.",
  },
  { env: 'FILESYSTEM_SOURCE_NAME', description: 'Source name: the id prefix of everything synced from this tree.', default: 'filesystem' },
  {
    env: 'FILESYSTEM_WORKER_THREAD',
    description: 'true: walk, read and render the tree on a worker thread, beside the sync engine; false: on the sync thread.',
    default: 'true when the machine has more than one CPU',
  },
] as const;

/**
 * `filesystem`: a folder tree of documents with `_access.yaml` sidecars and a directory file of
 * users and groups. The registry loads only this file; `create` loads the adapter when it runs.
 */
export const filesystemAdapterFactory: AdapterFactory = {
  name: 'filesystem',
  description: 'A folder tree of HTML, Markdown, PDF, DOCX, PPTX and text files; access from _access.yaml sidecars, users and groups from a directory file.',
  settings: FILESYSTEM_SETTINGS,
  create: async (env) => {
    const { filesystemConfigFromEnv } = await import('./filesystem-config');
    const { createFilesystemAdapter } = await import('./filesystem-adapter');
    return createFilesystemAdapter(filesystemConfigFromEnv(env));
  },
};
