import type { Command } from 'commander';
import { adapterFactories } from '../adapters/adapter-registry';
import { loadConfig } from '../config/load-config';
import { createLogger, wantsPrettyLogs } from '../logging/create-logger';
import { openStaging } from './open-staging';
import type { Runtime } from './runtime';
import { parseInterval } from './parse-interval';
import { parseSchedule, selectAdapters } from './sync-command';
import { intervalCron } from './sync-queue/interval-cron';
import type { SourceSchedule, SyncScheduler } from './sync-queue/sync-scheduler';

/** How long a stopping worker's running sync may take to record itself as cancelled. */
const STOP_BUDGET_MS = 15_000;

interface WorkerFlags {
  all?: boolean;
  every: string;
  fullEvery: string;
  accessEvery?: string;
}

export function registerSyncWorkerCommand(program: Command, runtime: Runtime): void {
  program
    .command('sync-worker')
    .argument('[adapter]', `adapter to schedule (${adapterFactories.map((f) => f.name).join(', ') || 'none registered'})`)
    .description(
      "Run syncs on their schedules until stopped. With Postgres: as jobs on a queue (SYNC_QUEUE_SCHEMA) that any number of sync-worker processes, on any machines, share: one run of a source and kind at a time, retries with backoff, a dead-letter queue (`queue` shows it), a dead worker's run resumed by another. With SQLite: in this process, as `sync --every` runs.",
    )
    .option('--all', 'schedule every configured adapter (one with any of its settings set)')
    .option(
      '--every <interval>',
      'incremental runs of each source this often (with Postgres, an interval that divides an hour or a day: 1m, 15m, 1h, …)',
      '15m',
    )
    .option('--full-every <interval>', 'full runs of each source this often (`off`: only when needed)', '24h')
    .option(
      '--access-every <interval>',
      'access-only runs of each source this often (users, groups, access lists; no content), beside its other runs: a slow full run never delays a revocation (adapters with `liveFiles`)',
    )
    .action(async (name: string | undefined, flags: WorkerFlags, command: Command) => {
      const usageError = (message: string): never =>
        command.showHelpAfterError(false).error(`error: ${message}`, { exitCode: 1, code: 'content-gateway.sync-worker' });
      const config = loadConfig(runtime.env);
      const logger = createLogger({ level: config.logLevel, pretty: wantsPrettyLogs(config.logFormat, runtime.interactive) });
      const factories = selectAdapters(name, flags, runtime, usageError);
      const { interval, fullEveryMs } = parseSchedule(flags, usageError);
      let accessEveryMs: number | undefined;
      try {
        accessEveryMs = flags.accessEvery !== undefined ? parseInterval(flags.accessEvery, { option: '--access-every' }) : undefined;
      } catch (error) {
        usageError((error as Error).message);
      }
      const schedules: SourceSchedule[] = factories.map((factory) => ({ factory, everyMs: interval ?? 0, fullEveryMs, accessEveryMs }));
      if (config.databaseUrl) {
        try {
          intervalCron(interval ?? 0, '--every');
          if (fullEveryMs !== undefined) intervalCron(fullEveryMs, '--full-every');
          if (accessEveryMs !== undefined) intervalCron(accessEveryMs, '--access-every');
        } catch (error) {
          usageError((error as Error).message);
        }
      }
      const staging = await openStaging(config, logger);
      const controller = new AbortController();
      let finished: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finished = resolve));
      runtime.onShutdown(async () => {
        controller.abort();
        await done;
      }, STOP_BUDGET_MS);
      try {
        const ctx = { runtime, config, logger, staging };
        const scheduler: SyncScheduler = config.databaseUrl
          ? new (await import('./sync-queue/queue-scheduler')).QueueScheduler(schedules, ctx)
          : new (await import('./sync-queue/in-process-scheduler')).InProcessScheduler(schedules, ctx);
        await scheduler.run(controller.signal);
      } finally {
        await staging.close();
        finished();
      }
    });
}
