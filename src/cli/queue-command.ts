import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { SyncQueueState } from '../staging/repositories/sync-queue-state';
import { withStaging } from './open-staging';
import type { Runtime } from './runtime';

interface QueueFlags {
  json?: boolean;
  limit: string;
}

export function registerQueueCommand(program: Command, runtime: Runtime): void {
  program
    .command('queue')
    .description(
      "Show the sync job queue (Postgres, `sync-worker`): each source's runs waiting, running, failed and dead, and the jobs in the dead-letter queue with their last error.",
    )
    .option('--json', 'print it as JSON (for scripts)')
    .option('--limit <n>', 'how many dead jobs to list', '20')
    .action(async (flags: QueueFlags) => {
      const config = loadConfig(runtime.env);
      if (!config.databaseUrl) {
        runtime.print('No sync queue: with SQLite, `sync-worker` (and `sync --every`) schedule syncs in their own process; `runs` shows them.');
        return;
      }
      await withStaging(config, async (staging) => {
        const state = new SyncQueueState(staging.db, config.syncQueueSchema);
        const exists = await state.exists();
        const counts = exists ? await state.counts() : [];
        const dead = exists ? await state.deadJobs(Math.max(1, Number(flags.limit) || 20)) : [];
        if (flags.json) {
          runtime.print(JSON.stringify({ queues: counts, dead }, null, 2));
          return;
        }
        if (!exists) {
          runtime.print(`No sync queue yet in schema ${config.syncQueueSchema}: a \`sync-worker\` creates it when it first starts.`);
          return;
        }
        runtime.print('Sync queues (waiting, running, failed, dead):');
        for (const c of counts) runtime.print(`  ${c.queue}  waiting ${c.waiting}, running ${c.running}, failed ${c.failed}, dead ${c.dead}`);
        runtime.print('');
        runtime.print(dead.length ? 'Dead jobs (every retry failed), newest first:' : 'No dead job.');
        for (const job of dead) runtime.print(`  ${job.at}  ${job.adapter} ${job.kind}: ${job.error.split('\n')[0]}`);
      });
    });
}
