import crypto, { type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

/** A token that passed verification: what is left to check on later requests is time. */
interface Verified {
  clientId: string;
  /** `exp` and `nbf`, in seconds since the epoch. */
  expires: number;
  notBefore: number;
}

/** Verified tokens remembered; the platform presents the same token until it expires. */
const VERIFIED_CACHE_SIZE = 1024;

/**
 * Short-lived access tokens for OAuth 2.0 client credentials: HS256 JWTs carrying the client id
 * (`sub`), audience and issuer. Verification pins the algorithm, so `alg: none` or a token signed
 * with another algorithm is refused, as are expired, tampered and other-audience tokens.
 *
 * A token that verified is remembered (by its exact text, at most `VERIFIED_CACHE_SIZE`), so the
 * same token on later requests costs a lookup instead of a signature check; its `exp` and `nbf`
 * are still checked against the clock every time, exactly as a fresh verification would. Nothing
 * else about a verified token can change while the signing key stays the same, and the key is
 * fixed for the life of the process.
 */
export class AccessTokens {
  private readonly key: KeyObject;
  private readonly verified = new Map<string, Verified>();

  constructor(
    signingKey: string,
    private readonly audience: string,
    readonly ttlSeconds: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    // A key object, not bytes: jose would import raw bytes again on every verification.
    this.key = crypto.createSecretKey(Buffer.from(signingKey, 'utf8'));
  }

  async issue(clientId: string): Promise<string> {
    const iat = Math.floor(this.now().getTime() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(clientId)
      .setAudience(this.audience)
      .setIssuer(this.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.ttlSeconds)
      .setJti(crypto.randomUUID())
      .sign(this.key);
  }

  /** The client id of a valid token, or undefined. */
  async verify(token: string): Promise<string | undefined> {
    const now = this.now();
    const seconds = Math.floor(now.getTime() / 1000);
    const known = this.verified.get(token);
    if (known) {
      // The checks jose makes against the clock: expired when exp <= now, early when nbf > now.
      if (seconds < known.expires && known.notBefore <= seconds) return known.clientId;
      if (seconds >= known.expires) this.verified.delete(token);
      return undefined;
    }
    let clientId: string | undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        audience: this.audience,
        issuer: this.audience,
        currentDate: now,
        requiredClaims: ['exp', 'sub'],
      });
      clientId = payload.sub;
      if (clientId !== undefined && payload.exp !== undefined) this.remember(token, { clientId, expires: payload.exp, notBefore: payload.nbf ?? Number.NEGATIVE_INFINITY });
    } catch {
      return undefined;
    }
    return clientId;
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
