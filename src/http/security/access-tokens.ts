import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

/**
 * Short-lived access tokens for OAuth 2.0 client credentials: HS256 JWTs carrying the client id
 * (`sub`), audience and issuer. Verification pins the algorithm, so `alg: none` or a token signed
 * with another algorithm is refused, as are expired, tampered and other-audience tokens.
 */
export class AccessTokens {
  private readonly key: Uint8Array;

  constructor(
    signingKey: string,
    private readonly audience: string,
    readonly ttlSeconds: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.key = new TextEncoder().encode(signingKey);
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
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        audience: this.audience,
        issuer: this.audience,
        currentDate: this.now(),
        requiredClaims: ['exp', 'sub'],
      });
      return payload.sub;
    } catch {
      return undefined;
    }
  }
}

/** Cheap shape test, so API keys never go through JWT parsing. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
