import fs from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { KitUsageError } from './kit-usage-error';

/**
 * Secrets reach the kit's commands from the environment only, never on a command line (where `ps`,
 * shell history and CI logs keep them), and the secrets a mock generates go to a file only its
 * owner can read, never to the terminal.
 */

/** Adds a hidden `--<flag>` that refuses its value and names the environment variable to set instead. */
export function refuseSecretOption(command: Command, flag: string, variable: string): Command {
  const option = new Option(`${flag} <value>`).hideHelp().argParser(() => {
    throw new KitUsageError(`${flag} is refused: secrets are not taken on the command line; set ${variable} in the environment instead.`);
  });
  return command.addOption(option);
}

/** Writes `credentials` as JSON to `file` (mode 600, its folder created) and returns the absolute path. */
export function writeCredentialsFile(file: string, credentials: Record<string, unknown>): string {
  const target = path.resolve(file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // Written to a new file opened with the mode, so the secrets are never readable by others, even briefly.
  fs.rmSync(target, { force: true });
  fs.writeFileSync(target, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return target;
}
