import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { seedDemo } from '../demo/seed-demo';
import { withStaging } from './open-staging';
import type { Runtime } from './runtime';

export function registerSeedDemoCommand(program: Command, runtime: Runtime): void {
  program
    .command('seed-demo')
    .description('Load (or refresh) the bundled demo corpus into the configured staging database, SQLite or Postgres.')
    .action(async () => {
      const summary = await withStaging(loadConfig(runtime.env), (staging) => seedDemo(staging.db, staging.blobs));
      runtime.print(`Demo corpus staged: ${summary.files} files, ${summary.users} users, ${summary.groups} groups.`);
    });
}
