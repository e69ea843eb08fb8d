import type { Command } from 'commander';
import { MIN_SECRET_LENGTH } from '../config/min-secret-length';
import { hashClientSecret } from '../http/security/client-secrets';
import type { Runtime } from './runtime';
import { readSecretFile } from './secret-options';
import { UsageError } from './usage-error';

const WHERE = 'set CLIENT_SECRET in the environment, or give --secret-file <path> (a file only you can read)';

export function registerHashSecretCommand(program: Command, runtime: Runtime): void {
  program
    .command('hash-secret')
    .argument('<client-id>', 'the OAuth client id')
    // Declared so a secret typed after the id is refused (shell history and `ps` keep it) rather than hashed.
    .argument('[refused]', 'never the secret itself: from CLIENT_SECRET or --secret-file only')
    .option('--secret-file <path>', 'file holding the client secret (mode 600); else CLIENT_SECRET in the environment')
    .description(
      `Print an OAUTH_CLIENTS entry (client_id:scrypt$…) for a client secret of at least ${MIN_SECRET_LENGTH} characters; the gateway stores only the hash.`,
    )
    .action(async (clientId: string, extra: string | undefined, flags: { secretFile?: string }) => {
      if (extra !== undefined) throw new UsageError(`hash-secret takes no secret on the command line: ${WHERE}.`);
      const value = flags.secretFile ? readSecretFile(flags.secretFile, '--secret-file') : runtime.env.CLIENT_SECRET;
      if (!value) throw new UsageError(`hash-secret needs the client secret: ${WHERE}.`);
      // The gateway in production refuses shorter secrets at its token endpoint (it sees only hashes at start-up).
      if (value.length < MIN_SECRET_LENGTH)
        throw new UsageError(`Use a client secret of at least ${MIN_SECRET_LENGTH} characters (for example \`openssl rand -hex 32\`).`);
      if (clientId.includes(':') || clientId.includes(',')) throw new UsageError('A client id cannot contain ":" or ",".');
      runtime.print(`${clientId}:${await hashClientSecret(value)}`);
    });
}
