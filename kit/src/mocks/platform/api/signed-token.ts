/** Opaque, HMAC-signed tokens (Conversations cursors, Data API `$skiptoken`s): tampered or foreign → undefined. */
import crypto from 'node:crypto';

export class SignedTokens {
  constructor(private readonly secret: Buffer = crypto.randomBytes(32)) {}

  private mac(body: string): string {
    return crypto.createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }

  sign(payload: Record<string, string | number>): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  verify(token: string): Record<string, unknown> | undefined {
    const [body, mac, extra] = token.split('.');
    if (!body || !mac || extra !== undefined || mac.length !== 22) return undefined;
    if (!crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(this.mac(body)))) return undefined;
    try {
      const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
}
