import crypto from 'node:crypto';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error';

/** What a `$skiptoken` carries: where the next page starts and the query it belongs to. */
export const skipTokenPayload = z.object({
  v: z.literal(1),
  /** The collection the token was issued for (`files`, `members:<group id>`, …). */
  c: z.string(),
  /** `$orderby`, `$filter` and `$select` of the first request, as given. */
  o: z.string(),
  f: z.string(),
  s: z.string(),
  /** Keyset position: ordering value(s), then the key, of the last row served. */
  k: z.array(z.string()).min(1).max(2),
});
export type SkipTokenPayload = z.infer<typeof skipTokenPayload>;

const ACCEPTED = 'Follow @odata.nextLink exactly as the gateway returned it, or start again without $skiptoken.';

/**
 * Opaque, HMAC-SHA256-signed cursors: `base64url(json).base64url(mac)`. A token edited by hand,
 * signed by another gateway, or issued for another collection is refused with a 400.
 */
export class SkipTokenCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('The $skiptoken secret must be at least 32 characters.');
    this.key = Buffer.from(secret, 'utf8');
  }

  encode(payload: SkipTokenPayload): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  decode(token: string, collection: string): SkipTokenPayload {
    const invalid = (why: string): never => {
      throw new GatewayError('INPUT_VALIDATION_FAILED', `Invalid $skiptoken: ${why}. ${ACCEPTED}`);
    };
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 4096) return invalid('it is malformed');
    const body = token.slice(0, dot);
    // Compared as text, not decoded bytes: base64 has several spellings of the same bytes, and a
    // token must have exactly one.
    const mac = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.mac(body), 'utf8');
    if (mac.length !== expected.length || !crypto.timingSafeEqual(mac, expected)) {
      return invalid('its signature does not match (edited, or issued by another gateway)');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return invalid('it is malformed');
    }
    const result = skipTokenPayload.safeParse(parsed);
    if (!result.success) return invalid('it is from an unsupported version');
    if (result.data.c !== collection) return invalid('it was issued for another collection');
    return result.data;
  }

  private mac(body: string): string {
    return crypto.createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
