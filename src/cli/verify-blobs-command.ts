import type { Command } from 'commander';
import path from 'node:path';
import type { Config } from '../config/config-schema';
import { loadConfig } from '../config/load-config';
import { DEMO_SOURCE } from '../demo/seed-demo';
import { verifyBlobs, type VerifyBlobsSummary } from '../sync/verify-blobs';
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

/** The blob store checked, as the operator configured it (a relative BLOB_DIR resolved where the command ran). */
function storeChecked(config: Config): string {
  if (config.blobStore === 's3') return `the S3 bucket ${config.s3Bucket ?? ''} under ${config.s3Prefix}/ (BLOB_STORE=s3)`;
  return config.blobStore === 'database' ? 'the database (BLOB_STORE=database)' : `BLOB_DIR ${path.resolve(config.blobDir)}`;
}

/** The commands that store missing content again: a full sync of each source, seed-demo for the demo. */
function refetchCommands(sources: string[]): string {
  const syncs = sources.filter((s) => s !== DEMO_SOURCE).map((s) => `content-gateway sync ${s} --full`);
  return [...syncs, ...(sources.includes(DEMO_SOURCE) ? ['content-gateway seed-demo (the demo)'] : [])].join('; ');
}

/**
 * When most content is missing, the likely cause is a blob store other than the one staging was
 * synced with (another BLOB_DIR, a relative one resolved elsewhere, another BLOB_STORE), not loss.
 */
function mixUpHint(s: VerifyBlobsSummary, config: Config): string | undefined {
  if (s.files === 0 || s.missing * 2 <= s.files) return undefined;
  const share = s.missing === s.files ? 'All' : `Most (${s.missing} of ${s.files})`;
  const store = {
    database: 'BLOB_STORE=database may not be the store staging was synced with; the sync, seed-demo and the gateway must use the same BLOB_STORE.',
    s3: `S3_BUCKET (${config.s3Bucket ?? ''}) and S3_PREFIX (${config.s3Prefix}) may not be the ones staging was synced with; the sync, seed-demo and the gateway must use the same ones.`,
    directory: `BLOB_DIR (${path.resolve(config.blobDir)}) may not be the folder staging was synced with; the sync, seed-demo and the gateway must use the same one.`,
  }[config.blobStore];
  return `${share} of the binary files' content is missing: ${store}`;
}

export function registerVerifyBlobsCommand(program: Command, runtime: Runtime): void {
  program
    .command('verify-blobs')
    .description(
      "Check every binary file's content in the blob store: present, of the file's size, and with the file's SHA-256 (each blob is read whole, streamed). " +
        'Prints one line per file whose content is missing or corrupt, the store checked (BLOB_DIR, the database or the S3 bucket) and the commands that bring the content back; ' +
        'exits 1 if there is any (0 when all are whole).',
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
          `Checked ${s.files} binary files (${s.blobs} blobs, ${formatBytes(s.bytes)}) in ${storeChecked(config)}: ${s.missing} missing, ${s.corrupt} corrupt.` +
            (found === 0
              ? ''
              : repair
                ? ` Repaired: the next sync of ${sources} fetches ${s.repaired} files again (their checkpoints are cleared, so it runs full).`
                : ` Run with --repair to have the next sync of ${sources} fetch them again.`),
        );
        // After a repair the next sync fetches them anyway; before one, a full sync is enough for missing content.
        if (s.missing > 0 && !repair)
          runtime.print(`Missing content is fetched again by a full sync of the source that owns it: ${refetchCommands(s.missingSources)}`);
        const hint = mixUpHint(s, config);
        if (hint) runtime.print(hint);
        // Still 1 after a repair: the content is back only once that sync has run.
        if (found > 0) runtime.setExitCode(1);
      });
    });
}
