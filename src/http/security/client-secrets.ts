import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/**
 * Client secrets are stored as `scrypt$<salt>$<hash>` (base64url), so a leaked setting does not
 * leak a usable secret. `content-gateway hash-secret` prints one.
 */
export async function hashClientSecret(secret: string, salt: Buffer = crypto.randomBytes(16)): Promise<string> {
  const hash = await scrypt(secret, salt, KEY_LENGTH, PARAMS);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Constant-time check of a presented secret against a stored hash (false for a malformed hash). */
export async function verifyClientSecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), KEY_LENGTH, PARAMS);
  return crypto.timingSafeEqual(actual, expected);
}

export interface OAuthClient {
  id: string;
  secretHash: string;
}

/** `OAUTH_CLIENTS` entries `client_id:scrypt$…` → clients; throws naming the malformed entry. */
export function parseOAuthClients(entries: readonly string[]): OAuthClient[] {
  return entries.map((entry) => {
    const colon = entry.indexOf(':');
    const id = entry.slice(0, colon);
    const secretHash = entry.slice(colon + 1);
    if (colon <= 0 || !secretHash.startsWith('scrypt$')) {
      throw new Error(`OAUTH_CLIENTS: entry for '${colon > 0 ? id : '?'}' must be client_id:scrypt$… (make one with \`content-gateway hash-secret\`)`);
    }
    return { id, secretHash };
  });
}
