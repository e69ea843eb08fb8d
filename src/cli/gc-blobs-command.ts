import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { collectBlobGarbage } from '../sync/collect-blob-garbage';
import { withBlobMaintenance } from './with-blob-maintenance';
import type { Runtime } from './runtime';
import { parseInterval } from './parse-interval';

export function registerGcBlobsCommand(program: Command, runtime: Runtime): void {
  program
    .command('gc-blobs')
    .description(
      "Delete blobs no file points at any more (left by a sync killed mid-way or run beside another source's), and what interrupted writes left behind.",
    )
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .option('--grace <duration>', 'spare blobs stored more recently than this (a sync may not have committed their rows yet)', '1h')
    .action(async (flags: { dryRun?: boolean; grace: string }, command: Command) => {
      let graceMs: number;
      try {
        graceMs = parseInterval(flags.grace, { option: '--grace', maxMs: Number.MAX_SAFE_INTEGER });
      } catch (error) {
        command.showHelpAfterError(false).error(`error: ${(error as Error).message}`, { exitCode: 1, code: 'content-gateway.gc-blobs' });
        return;
      }
      const config = loadConfig(runtime.env);
      await withBlobMaintenance(config, runtime, async (staging) => {
        const dryRun = flags.dryRun === true;
        const s = await collectBlobGarbage(staging.db, staging.blobs, { graceMs, dryRun });
        runtime.print(
          `${s.blobs} blobs in the ${config.blobStore} store: ${s.unreferenced} unreferenced ${dryRun ? 'would be deleted' : 'deleted'}, ` +
            `${s.recent} unreferenced but stored within ${flags.grace} kept` +
            (dryRun ? '.' : `; ${s.leftovers} leftovers of interrupted writes removed.`),
        );
      });
    });
}
