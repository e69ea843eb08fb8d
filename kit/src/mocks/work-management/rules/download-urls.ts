/**
 * Pre-signed download URLs: `download_url`s are minted fresh on every read and stop working after
 * a short time (about 2 minutes for attachments, 1 hour for exports), like the S3 links the real
 * service hands out. Expired or tampered links answer 403 with an S3-style XML body.
 */
import crypto from 'node:crypto';

export type DownloadKind = 'attachments' | 'exports';

export class DownloadSigner {
  constructor(
    private readonly secret: string,
    private readonly now: () => number,
  ) {}

  url(origin: string, kind: DownloadKind, gid: string, ttlMs: number): string {
    const expires = this.now() + ttlMs;
    return `${origin}/_downloads/${kind}/${gid}?expires=${expires}&signature=${this.sign(kind, gid, expires)}`;
  }

  check(kind: DownloadKind, gid: string, expires: string | undefined, signature: string | undefined): 'ok' | 'expired' | 'bad-signature' {
    const at = Number(expires);
    if (!expires || !signature || !Number.isFinite(at)) return 'bad-signature';
    const expected = this.sign(kind, gid, at);
    if (expected.length !== signature.length || !crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) return 'bad-signature';
    return this.now() > at ? 'expired' : 'ok';
  }

  private sign(kind: string, gid: string, expires: number): string {
    return crypto.createHmac('sha256', this.secret).update(`${kind}/${gid}/${expires}`).digest('hex');
  }
}

export function s3Error(code: 'AccessDenied' | 'SignatureDoesNotMatch' | 'NoSuchKey', message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`;
}
