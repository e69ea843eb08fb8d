export { FILESYSTEM_SETTINGS, filesystemAdapterFactory } from './filesystem-adapter-factory';
export { createFilesystemAdapter, FilesystemAdapter, filesystemCheckpointSchema, type FilesystemCheckpoint } from './filesystem-adapter';
export { filesystemConfigFromEnv, resolveFilesystemConfig, type FilesystemConfig, type FilesystemConfigInput } from './filesystem-config';
