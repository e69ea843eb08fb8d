import { z } from 'zod';

/**
 * Where the last run left the tree, in a size that does not grow with the number of files: the
 * files' versions are kept with their staged rows (an incremental run compares its walk with
 * them through `AdapterContext.staged`), not here. `sidecars` maps each sidecar's relative path
 * to the SHA-256 of its bytes; `failed` lists files that could not be synced (retried by every
 * incremental run; at most what the error budget lets a run fail); `directory` fingerprints the
 * directory file and lists its ids, so users and groups that disappear are deleted. A checkpoint
 * of an earlier release (with a `files` map) is refused: the next run is full, once.
 */
export const filesystemCheckpointSchema = z.strictObject({
  scannedAt: z.iso.datetime(),
  sidecars: z.record(z.string(), z.string()),
  failed: z.array(z.string()),
  directory: z.strictObject({ sha256: z.string(), users: z.array(z.string()), groups: z.array(z.string()) }),
});

export type FilesystemCheckpoint = z.infer<typeof filesystemCheckpointSchema>;
