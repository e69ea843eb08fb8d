import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { UsageError } from './usage-error';

/**
 * Secrets reach the product's commands from the environment or from a file, never on a command
 * line (where `ps`, shell history and `npm run`'s echo of its command keep them).
 */

/**
 * Adds a hidden `<flag> <value>` that refuses its value with one line naming where the secret goes
 * instead. A UsageError (not commander's InvalidArgumentError) so the line is printed alone, without
 * the help text, and never with the value.
 */
export function refuseSecretOption(command: Command, flag: string, instead: string): Command {
  const option = new Option(`${flag} <value>`).hideHelp().argParser(() => {
    throw new UsageError(`${flag} is refused: secrets are not taken on the command line; ${instead}.`);
  });
  return command.addOption(option);
}

/** The secret in `file`, trimmed; a missing, empty or world-readable file is refused with one line naming it. */
export function readSecretFile(file: string, flag: string): string {
  let stat: fs.Stats;
  let text: string;
  try {
    stat = fs.statSync(file);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag} ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  // Windows has no such mode bits: the file's ACL is the operator's business there.
  if (process.platform !== 'win32' && (stat.mode & 0o004) !== 0)
    throw new UsageError(`${flag} ${file} is readable by every user on this machine: chmod 600 it (or o-r) first.`);
  const secret = text.trim();
  if (!secret) throw new UsageError(`${flag} ${file} is empty: write the key into it.`);
  return secret;
}
