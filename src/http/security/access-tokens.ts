import crypto, { type KeyObject } from 'node:crypto';
import type { OAuthClient } from './client-secrets';

/** A token that passed verification: what is left to check on later requests is time. */
interface Verified {
  clientId: string;
  /** The token's `scope` claim: none for a crawl token, `console:admin` for a console admin's. */
  scope: string | undefined;
  /** `exp` and `nbf`, in seconds since the epoch. */
  expires: number;
  notBefore: number;
}

/** Verified tokens remembered; the platform presents the same token until it expires. */
const VERIFIED_CACHE_SIZE = 1024;

/** The scope of a console admin's tokens (`CONSOLE_ADMIN_CLIENTS`): they open the console, and no `/v1` route. */
export const CONSOLE_ADMIN_SCOPE = 'console:admin';

/** The private claim naming the configured secret a token was issued for (see `AccessTokens`). */
const SECRET_VERSION = 'secret_version';

/**
 * Short-lived access tokens for OAuth 2.0 client credentials: HS256 JWTs carrying the client id
 * (`sub`), audience and issuer. Verification pins the algorithm, so `alg: none` or a token signed
 * with another algorithm is refused, as are expired, tampered and other-audience tokens.
 *
 * A token is good only while its client is configured with the secret it was issued for: `sub`
 * must be one of `clients`, and the token's `secret_version` claim (an HMAC, under the signing key,
 * of the client's id and stored hash: it tells nothing about the secret) must match that client's
 * entry now. So removing a client from `OAUTH_CLIENTS`, or giving it a new secret, and restarting
 * ends its tokens at once instead of when they expire.
 *
 * A token that verified is remembered (by its exact text, at most `VERIFIED_CACHE_SIZE`), so the
 * same token on later requests costs a lookup instead of a signature check; its `exp` and `nbf`
 * are still checked against the clock every time, exactly as a fresh verification would. Nothing
 * else about a verified token can change while the process runs: the signing key and the clients
 * are fixed for its life.
 */
export class AccessTokens {
  private readonly key: KeyObject;
  private readonly verified = new Map<string, Verified>();
  /** Each configured client's current `secret_version`. */
  private readonly versions: ReadonlyMap<string, string>;

  constructor(
    signingKey: string,
    private readonly audience: string,
    readonly ttlSeconds: number,
    clients: readonly OAuthClient[],
    private readonly now: () => Date = () => new Date(),
  ) {
    // A key object, not bytes: jose would import raw bytes again on every verification.
    this.key = crypto.createSecretKey(Buffer.from(signingKey, 'utf8'));
    this.versions = new Map(
      clients.map((c) => [c.id, crypto.createHmac('sha256', this.key).update(`${c.id}:${c.secretHash}`).digest('base64url').slice(0, 22)]),
    );
  }

  /** A token for `clientId`; with `scope`, one that opens only what asks for that scope (and no `/v1` route). */
  async issue(clientId: string, scope?: string): Promise<string> {
    const version = this.versions.get(clientId);
    if (version === undefined) throw new Error(`no configured OAuth client '${clientId}'`);
    const iat = Math.floor(this.now().getTime() / 1000);
    // jose loads with the first token: a gateway with API keys only never loads it.
    const { SignJWT } = await import('jose');
    return new SignJWT({ [SECRET_VERSION]: version, ...(scope === undefined ? {} : { scope }) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(clientId)
      .setAudience(this.audience)
      .setIssuer(this.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .setJti(crypto.randomUUID())
      .sign(this.key);
  }

  /** The client id of a valid crawl token (one with no scope: `/v1`'s), or undefined. */
  async verify(token: string): Promise<string | undefined> {
    const verified = await this.claims(token);
    return verified && verified.scope === undefined ? verified.clientId : undefined;
  }

  /** The client id of a valid token with exactly this scope, or undefined. */
  async verifyScope(token: string, scope: string): Promise<string | undefined> {
    const verified = await this.claims(token);
    return verified?.scope === scope ? verified.clientId : undefined;
  }

  private async claims(token: string): Promise<Verified | undefined> {
    const now = this.now();
    const seconds = Math.floor(now.getTime() / 1000);
    const known = this.verified.get(token);
    if (known) {
      // The checks jose makes against the clock: expired when exp <= now, early when nbf > now.
      if (seconds < known.expires && known.notBefore <= seconds) return known;
      if (seconds >= known.expires) this.verified.delete(token);
      return undefined;
    }
    const { jwtVerify } = await import('jose');
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        audience: this.audience,
        issuer: this.audience,
        currentDate: now,
        requiredClaims: ['exp', 'sub'],
      });
      // Issued to a client no longer configured, or for a secret it no longer has: revoked.
      const expected = payload.sub === undefined ? undefined : this.versions.get(payload.sub);
      if (expected === undefined || payload[SECRET_VERSION] !== expected) return undefined;
      const verified: Verified = {
        clientId: payload.sub as string,
        scope: typeof payload.scope === 'string' ? payload.scope : undefined,
        expires: payload.exp as number,
        notBefore: payload.nbf ?? Number.NEGATIVE_INFINITY,
      };
      this.remember(token, verified);
      return verified;
    } catch {
      return undefined;
    }
  }

  private remember(token: string, verified: Verified): void {
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      // Expired entries go first; failing that, the oldest.
      const seconds = Math.floor(this.now().getTime() / 1000);
      for (const [key, entry] of this.verified) if (entry.expires <= seconds) this.verified.delete(key);
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(token, verified);
  }
}

/** Cheap shape test, so API keys never go through JWT parsing. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
