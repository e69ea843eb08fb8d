/** What the mock's signed tokens (page offsets, sync tokens) share: a secret, a clock, a lifetime and an HMAC. */
import crypto from 'node:crypto';

export abstract class SignedTokens {
  constructor(
    private readonly secret: string,
    protected readonly now: () => number,
    protected readonly ttlMs: () => number,
  ) {}

  /** HMAC-SHA256 of `input` with the secret, base64url. */
  protected hmac(input: string): string {
    return crypto.createHmac('sha256', this.secret).update(input).digest('base64url');
  }

  /** Whether a token's signature is the expected one, compared in constant time. */
  protected signatureMatches(signature: string, expected: string): boolean {
    return signature.length === expected.length && crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
  }
}
