import type { Config } from '../config/config-schema';
import { SyncRunningError } from '../sync/collect-blob-garbage';
import { withStaging, type Staging } from './open-staging';
import type { Runtime } from './runtime';

/**
 * Runs blob maintenance (`gc-blobs`, `verify-blobs`) on the configured staging and closes it: a
 * sync holding the lock is reported with exit code 1 instead of a stack trace.
 */
export async function withBlobMaintenance(config: Config, runtime: Runtime, work: (staging: Staging) => Promise<void>): Promise<void> {
  try {
    await withStaging(config, work);
  } catch (error) {
    if (!(error instanceof SyncRunningError)) throw error;
    runtime.print(error.message);
    runtime.setExitCode(1);
  }
}
