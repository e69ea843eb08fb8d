import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { createLogger } from '../logging/create-logger';
import { openStaging } from './open-staging';
import type { Runtime } from './runtime';

export function registerMigrateCommand(program: Command, runtime: Runtime): void {
  program
    .command('migrate')
    .description('Bring the staging schema up to date (also done on every `serve` start-up).')
    .action(async () => {
      const config = loadConfig(runtime.env);
      const staging = await openStaging(config, createLogger({ level: config.logLevel }));
      await staging.close();
      runtime.print('Staging schema is up to date.');
    });
}
