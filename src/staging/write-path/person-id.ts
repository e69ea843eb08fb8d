import crypto from 'node:crypto';
import { normalizeEmail } from '../../lib/normalize-email';

/**
 * The served id of the person an account belongs to: `person-` and 32 hex digits of the SHA-256
 * of the normalised email (see lib/normalize-email), so every source naming the same address
 * lands on one user, whichever synced first, and the id needs no percent-encoding in a path. An
 * account without an email stays a person of its own (keyed by the account id).
 *
 * The formula is part of what is served: changing it changes every user id the platform knows.
 */
export function personIdOf(accountId: string, email: string): string {
  const key = normalizeEmail(email);
  const basis = key === '' ? `account\u0000${accountId}` : `email\u0000${key}`;
  return `person-${crypto.hash('sha256', basis, 'hex').slice(0, 32)}`;
}
