import type { Command } from 'commander';
import { MIN_SECRET_LENGTH } from '../config/min-secret-length';
import { hashClientSecret } from '../http/security/client-secrets';
import type { Runtime } from './runtime';
import { UsageError } from './usage-error';

export function registerHashSecretCommand(program: Command, runtime: Runtime): void {
  program
    .command('hash-secret')
    .argument('<client-id>', 'the OAuth client id')
    .argument('[secret]', 'the client secret (read from the CLIENT_SECRET environment variable when omitted, to keep it out of shell history)')
    .description(
      `Print an OAUTH_CLIENTS entry (client_id:scrypt$…) for a client secret of at least ${MIN_SECRET_LENGTH} characters; the gateway stores only the hash.`,
    )
    .action(async (clientId: string, secret: string | undefined) => {
      const value = secret ?? runtime.env.CLIENT_SECRET;
      if (!value)
        throw new UsageError(
          'hash-secret needs the client secret: set CLIENT_SECRET in the environment (or give it as an argument, which shell history keeps).',
        );
      // The gateway in production refuses shorter secrets at its token endpoint (it sees only hashes at start-up).
      if (value.length < MIN_SECRET_LENGTH)
        throw new UsageError(`Use a client secret of at least ${MIN_SECRET_LENGTH} characters (for example \`openssl rand -hex 32\`).`);
      if (clientId.includes(':') || clientId.includes(',')) throw new UsageError('A client id cannot contain ":" or ",".');
      runtime.print(`${clientId}:${await hashClientSecret(value)}`);
    });
}
