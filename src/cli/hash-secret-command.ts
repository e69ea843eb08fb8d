import type { Command } from 'commander';
import { hashClientSecret } from '../http/security/client-secrets';
import type { Runtime } from './runtime';

export function registerHashSecretCommand(program: Command, runtime: Runtime): void {
  program
    .command('hash-secret')
    .argument('<client-id>', 'the OAuth client id')
    .argument('[secret]', 'the client secret (read from the CLIENT_SECRET environment variable when omitted, to keep it out of shell history)')
    .description('Print an OAUTH_CLIENTS entry (client_id:scrypt$…) for a client secret; the gateway stores only the hash.')
    .action(async (clientId: string, secret: string | undefined) => {
      const value = secret ?? runtime.env.CLIENT_SECRET;
      if (!value) throw new Error('Give the secret as an argument or in CLIENT_SECRET.');
      if (value.length < 16) throw new Error('Use a client secret of at least 16 characters.');
      if (clientId.includes(':') || clientId.includes(',')) throw new Error('A client id cannot contain ":" or ",".');
      runtime.print(`${clientId}:${await hashClientSecret(value)}`);
    });
}
