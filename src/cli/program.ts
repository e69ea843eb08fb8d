import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { projectRoot } from '../lib/project-root';
import type { Runtime } from './runtime';

type Register = (program: Command, runtime: Runtime) => void;

/**
 * Every command: its name, the one line `--help` shows for it, and how to load its module. A
 * command's module (and all it imports) is loaded only when that command runs or shows its own
 * help, so `migrate` never loads the HTTP stack and `serve` never loads the conformance suite.
 */
export const COMMANDS: ReadonlyArray<{ name: string; summary: string; load: () => Promise<Register> }> = [
  {
    name: 'serve',
    summary: 'Run the gateway: migrate staging, load the demo corpus into an empty embedded database, serve /v1.',
    load: async () => (await import('./serve-command')).registerServeCommand,
  },
  {
    name: 'migrate',
    summary: 'Bring the staging schema up to date (also done on every `serve` start-up).',
    load: async () => (await import('./migrate-command')).registerMigrateCommand,
  },
  {
    name: 'seed-demo',
    summary: 'Load (or refresh) the bundled demo corpus into staging.',
    load: async () => (await import('./seed-demo-command')).registerSeedDemoCommand,
  },
  {
    name: 'sync',
    summary: 'Sync a source (or --all) into staging: incremental when it can, else full.',
    load: async () => (await import('./sync-command')).registerSyncCommand,
  },
  {
    name: 'sync-worker',
    summary: 'Run syncs on their schedules until stopped: with Postgres, jobs on a queue any number of workers share.',
    load: async () => (await import('./sync-worker-command')).registerSyncWorkerCommand,
  },
  {
    name: 'queue',
    summary: "The sync job queue's state (Postgres): runs waiting, running, failed, dead, and the dead ones' errors.",
    load: async () => (await import('./queue-command')).registerQueueCommand,
  },
  {
    name: 'check',
    summary: "Check an adapter's settings and that its source answers (or --all), without a sync.",
    load: async () => (await import('./check-command')).registerCheckCommand,
  },
  {
    name: 'runs',
    summary: 'Show recent sync runs and what is still failing, with the reasons.',
    load: async () => (await import('./runs-command')).registerRunsCommand,
  },
  {
    name: 'policy',
    summary: 'Access policies: check a policy file, explain a decision.',
    load: async () => (await import('./policy-command')).registerPolicyCommand,
  },
  {
    name: 'manifest',
    summary: 'Declarative REST sources: start a manifest from a template, validate one and show what it reads, with access lists.',
    load: async () => (await import('./manifest-command')).registerManifestCommand,
  },
  {
    name: 'gc-blobs',
    summary: 'Delete blobs no staged file references any more.',
    load: async () => (await import('./gc-blobs-command')).registerGcBlobsCommand,
  },
  {
    name: 'verify-blobs',
    summary: 'Check that every staged binary is in the blob store, whole.',
    load: async () => (await import('./verify-blobs-command')).registerVerifyBlobsCommand,
  },
  {
    name: 'hash-secret',
    summary: 'Print an OAUTH_CLIENTS entry for a client secret (only its hash is stored).',
    load: async () => (await import('./hash-secret-command')).registerHashSecretCommand,
  },
  {
    name: 'conformance',
    summary: 'Check a gateway over HTTP the way the platform crawls it; who can see what.',
    load: async () => (await import('./conformance-command')).registerConformanceCommand,
  },
  {
    name: 'webhooks',
    summary: "Register the gateway's webhook URL at the work-management service; list and delete webhooks.",
    load: async () => (await import('./webhooks-command')).registerWebhooksCommand,
  },
  {
    name: 'new-adapter',
    summary: 'Scaffold an adapter for a new source, with its contract test.',
    load: async () => (await import('./new-adapter-command')).registerNewAdapterCommand,
  },
  {
    name: 'usage',
    summary: "Is the content ingested and used: the gateway's files against the platform's Data API.",
    load: async () => (await import('./usage-command')).registerUsageCommand,
  },
];

/** The installed package's version (package.json above src/ or dist/). */
function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

function baseProgram(): Command {
  return new Command('content-gateway')
    .description('Reference content gateway for the AI-assistant platform: serves staged content over the /v1 gateway contract.')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .showHelpAfterError();
}

/** The whole command line, every command loaded (what tests and tools that inspect it use). */
export async function buildProgram(runtime: Runtime): Promise<Command> {
  const program = baseProgram();
  for (const command of COMMANDS) (await command.load())(program, runtime);
  return program;
}

/** The first word of `argv` (after node and the script) that is not an option: the command asked for. */
function commandAskedFor(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((arg) => !arg.startsWith('-'));
}

/**
 * The command line for one invocation: the command `argv` names is loaded in full, every other one
 * is listed by its summary only. Top-level `--help` (or no command) loads none of them.
 */
export async function buildProgramFor(runtime: Runtime, argv: readonly string[]): Promise<Command> {
  const program = baseProgram();
  const asked = commandAskedFor(argv);
  for (const command of COMMANDS) {
    if (command.name === asked) (await command.load())(program, runtime);
    else program.command(command.name).summary(command.summary).description(command.summary);
  }
  return program;
}
