import type { Command } from 'commander';
import { adapterFactories, findAdapterFactory } from '../adapters/adapter-registry';
import { adapterSettingsHelp } from '../adapters/adapter-settings-table';
import { probeAdapter } from '../adapters/probe-adapter';
import { createLogger } from '../logging/create-logger';
import type { Runtime } from './runtime';
import { UsageError } from './usage-error';

/** A message on one line: its first paragraph (what follows, such as a parser's excerpt of the file, is for a terminal session). */
function oneLine(message: string): string {
  return (message.trim().split(/\n\s*\n/)[0] ?? '').replace(/\s*\n\s*/g, ' ');
}

/** One line for one adapter: `<name>: ok — …`, or `<name>: settings: …` / `<name>: source: …` (a problem). */
async function checkOne(name: string, runtime: Runtime): Promise<boolean> {
  const factory = findAdapterFactory(name);
  if (!factory) throw new UsageError(`Unknown adapter '${name}'. Registered adapters: ${adapterFactories.map((f) => f.name).join(', ')}.`);
  const logger = createLogger({ level: runtime.env.LOG_LEVEL ?? 'warn' });
  let adapter;
  try {
    adapter = await factory.create(runtime.env, { logger });
  } catch (error) {
    runtime.print(`${name}: settings: ${oneLine((error as Error).message)}`);
    return false;
  }
  const result = await probeAdapter(adapter, logger);
  runtime.print(result.ok ? `${name}: ok — settings valid, ${result.answered}` : `${name}: source: ${oneLine(result.problem)}`);
  return result.ok;
}

export function registerCheckCommand(program: Command, runtime: Runtime): void {
  program
    .command('check')
    .argument('[adapter]', `adapter to check (${adapterFactories.map((f) => f.name).join(', ')})`)
    .option('--all', 'check every registered adapter')
    .description(
      "Check an adapter's settings and that its source answers (reads up to its first item), without a sync: nothing is written to staging or the blob store. Exit 0 when every adapter checked is fine, 1 otherwise (one line per problem).",
    )
    .addHelpText('after', () => adapterSettingsHelp())
    .action(async (name: string | undefined, flags: { all?: boolean }) => {
      if (!name && !flags.all) throw new UsageError(`Name an adapter or use --all. Registered adapters: ${adapterFactories.map((f) => f.name).join(', ')}.`);
      const names = flags.all ? adapterFactories.map((f) => f.name) : [name as string];
      let ok = true;
      for (const n of names) if (!(await checkOne(n, runtime))) ok = false;
      if (!ok) runtime.setExitCode(1);
    });
}
