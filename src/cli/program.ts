import { Command } from 'commander';
import { registerConformanceCommand } from './conformance-command';
import { registerGcBlobsCommand } from './gc-blobs-command';
import { registerHashSecretCommand } from './hash-secret-command';
import { registerMigrateCommand } from './migrate-command';
import { registerNewAdapterCommand } from './new-adapter-command';
import { registerPolicyCommand } from './policy-command';
import { registerSeedDemoCommand } from './seed-demo-command';
import { registerServeCommand } from './serve-command';
import { registerSyncCommand } from './sync-command';
import type { Runtime } from './runtime';
import { registerUsageCommand } from './usage-command';
import { registerVerifyBlobsCommand } from './verify-blobs-command';

/** The `content-gateway` command line; settings come from the environment (see docs/settings.md). */
export function buildProgram(runtime: Runtime): Command {
  const program = new Command('content-gateway')
    .description('Reference content gateway for the AI-assistant platform: serves staged content over the /v1 gateway contract.')
    .showHelpAfterError();
  registerServeCommand(program, runtime);
  registerMigrateCommand(program, runtime);
  registerSeedDemoCommand(program, runtime);
  registerSyncCommand(program, runtime);
  registerPolicyCommand(program, runtime);
  registerGcBlobsCommand(program, runtime);
  registerVerifyBlobsCommand(program, runtime);
  registerHashSecretCommand(program, runtime);
  registerConformanceCommand(program, runtime);
  registerNewAdapterCommand(program, runtime);
  registerUsageCommand(program, runtime);
  return program;
}
