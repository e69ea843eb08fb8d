import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { withStaging } from './open-staging';
import type { Runtime } from './runtime';

export function registerMigrateCommand(program: Command, runtime: Runtime): void {
  program
    .command('migrate')
    .description('Bring the staging schema up to date (also done on every `serve` start-up).')
    .action(async () => {
      // Opening staging migrates it.
      await withStaging(loadConfig(runtime.env), async () => undefined);
      runtime.print('Staging schema is up to date.');
    });
}
