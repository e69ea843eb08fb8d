import type { AdapterFactory } from '../adapter-factory';
import { createFilesystemAdapter } from './filesystem-adapter';
import { FILESYSTEM_SETTINGS, filesystemConfigFromEnv } from './filesystem-config';

export { createFilesystemAdapter, FilesystemAdapter, filesystemCheckpointSchema, type FilesystemCheckpoint } from './filesystem-adapter';
export { filesystemConfigFromEnv, resolveFilesystemConfig, type FilesystemConfig, type FilesystemConfigInput } from './filesystem-config';

/** `filesystem`: a folder tree of documents with `_access.yaml` sidecars and a directory file of users and groups. */
export const filesystemAdapterFactory: AdapterFactory = {
  name: 'filesystem',
  description: 'A folder tree of HTML, Markdown, PDF, DOCX, PPTX and text files; access from _access.yaml sidecars, users and groups from a directory file.',
  settings: FILESYSTEM_SETTINGS.map((s) => ({ ...s })),
  create: (env) => createFilesystemAdapter(filesystemConfigFromEnv(env)),
};
