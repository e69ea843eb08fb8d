import crypto from 'node:crypto';

// One-shot: createHash builds a stream-capable Hash object per call, several times the cost of the digest itself.
const digest = (value: string): Buffer => crypto.hash('sha256', value, 'buffer');

/**
 * Checks a presented key against every configured key in constant time: both sides are hashed to
 * equal-length digests and compared with `timingSafeEqual`, and every key is compared (no early
 * exit), so neither the length nor the position of a match leaks through timing.
 */
export class ApiKeyVerifier {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  /** The matching key's index (a stable client id for logs and rate limits), or undefined. */
  verify(presented: string): number | undefined {
    const candidate = digest(presented);
    let match: number | undefined;
    this.digests.forEach((d, i) => {
      if (crypto.timingSafeEqual(d, candidate) && match === undefined) match = i;
    });
    return match;
  }
}
