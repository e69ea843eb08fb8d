import { Command } from 'commander';
import { registerHarnessCommand } from './harness-command';
import type { KitRuntime } from './kit-runtime';
import { registerMockCommand } from './mock-command';

/** The verification kit's command line: the two outside worlds as mocks, and the end-to-end scenarios. */
export function buildKitProgram(runtime: KitRuntime): Command {
  const program = new Command('content-gateway-kit')
    .description("The content gateway's verification kit: mocks of the work-management API and of the platform, and the end-to-end scenarios.")
    .showHelpAfterError();
  registerMockCommand(program, runtime);
  registerHarnessCommand(program, runtime);
  return program;
}
