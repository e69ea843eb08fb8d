import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { verifyBlobs } from '../sync/verify-blobs';
import { withBlobMaintenance } from './with-blob-maintenance';
import type { Runtime } from './runtime';

/** `1.5 MB`: bytes in a unit a person reads at a glance. */
function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function registerVerifyBlobsCommand(program: Command, runtime: Runtime): void {
  program
    .command('verify-blobs')
    .description(
      "Check every binary file's content in the blob store: present, of the file's size, and with the file's SHA-256 (each blob is read whole, streamed). " +
        'Prints one line per file whose content is missing or corrupt and exits 1 if there is any (0 when all are whole).',
    )
    .option(
      '--repair',
      "make the next sync of each affected source fetch those files again: corrupt blobs are deleted, the files' stored content is forgotten, and the source's checkpoint is cleared, so that sync runs full (refused while a sync runs)",
    )
    .action(async (flags: { repair?: boolean }) => {
      const config = loadConfig(runtime.env);
      await withBlobMaintenance(config, runtime, async (staging) => {
        const repair = flags.repair === true;
        const s = await verifyBlobs(staging.db, staging.blobs, {
          repair,
          onFinding: (f) => runtime.print(`${f.problem}: ${JSON.stringify(f.fileId)} (blob ${f.blobKey}: ${f.detail})`),
        });
        const found = s.missing + s.corrupt;
        const sources = s.sources.join(', ');
        runtime.print(
          `Checked ${s.files} binary files (${s.blobs} blobs, ${formatBytes(s.bytes)}) in the ${config.blobStore} store: ${s.missing} missing, ${s.corrupt} corrupt.` +
            (found === 0
              ? ''
              : repair
                ? ` Repaired: the next sync of ${sources} fetches ${s.repaired} files again (their checkpoints are cleared, so it runs full).`
                : ` Run with --repair to have the next sync of ${sources} fetch them again.`),
        );
        // Still 1 after a repair: the content is back only once that sync has run.
        if (found > 0) runtime.setExitCode(1);
      });
    });
}
