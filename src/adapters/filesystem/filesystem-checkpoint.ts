import { z } from 'zod';

/**
 * Where the last run left the tree. `files` maps every content file's native id to the version
 * it had (`mtimeMs:size`, prefixed `racy:` when it was modified too close to the scan to trust);
 * `sidecars` maps each sidecar's relative path to the SHA-256 of its bytes; `failed` lists files
 * that could not be synced (retried by every incremental run); `directory` fingerprints the
 * directory file and lists its ids, so users and groups that disappear are deleted.
 */
export const filesystemCheckpointSchema = z.strictObject({
  scannedAt: z.iso.datetime(),
  files: z.record(z.string(), z.string()),
  sidecars: z.record(z.string(), z.string()),
  failed: z.array(z.string()),
  directory: z.strictObject({ sha256: z.string(), users: z.array(z.string()), groups: z.array(z.string()) }),
});

export type FilesystemCheckpoint = z.infer<typeof filesystemCheckpointSchema>;
